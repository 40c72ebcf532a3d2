import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { mcpSection } from "../../src/core/config/mcp-section.ts";
import type { ToolResult } from "../../src/core/tools/tool-result.ts";
import { mcpToolId } from "../../src/tools/mcp/index.ts";
import { DOTTED_TOOL, LONG_TOOL } from "../fakes/mcp-server.ts";
import {
  callTool,
  EVERYTHING,
  FIXTURE,
  familyWires,
  filesystemServer,
  hubOf,
  isRunning,
  ManualTimers,
  mcpAnswer,
  mcpText,
  openHubs,
  TOOL_CONTEXT,
} from "../support/mcp.ts";
import { freeze } from "../support/tools.ts";

const WAIT = { timeout: 20_000, interval: 20 };

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchyard-mcp-"));
  await writeFile(join(dir, "notes.txt"), "buy milk\nwater the plants\n");
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await Promise.all(openHubs.splice(0).map((hub) => hub.close()));
});

describe("McpHub with the reference servers over stdio", () => {
  it("registers each server's tools as the family mcp:<server>, deferred and gated by its capability", async () => {
    const { hub, registry } = hubOf({
      servers: { everything: EVERYTHING, filesystem: filesystemServer(dir) },
    });
    await hub.start();

    expect(hub.capabilities()).toEqual({
      "mcp:everything": { available: true },
      "mcp:filesystem": { available: true },
    });
    expect(registry.families()).toEqual(["mcp:everything", "mcp:filesystem"]);
    expect(registry.has("mcp__everything__echo")).toBe(true);
    expect(registry.has("mcp__everything__get-tiny-image")).toBe(true);
    expect(registry.has("mcp__filesystem__read_text_file")).toBe(true);
    for (const tool of registry.list()) {
      expect(tool.id).toMatch(/^mcp__(everything|filesystem)__[A-Za-z0-9_-]+$/);
      expect(tool.defer).toBe(true);
      expect(tool.capability).toBe(tool.family);
    }
    // A tool that answers only as an MCP task cannot serve a chat turn.
    expect(registry.has("mcp__everything__simulate-research-query")).toBe(false);
  });

  it("gives the same bytes in another process and after the server restarts", async () => {
    const timers = new ManualTimers();
    const first = hubOf(
      { servers: { everything: EVERYTHING, filesystem: filesystemServer(dir) } },
      {
        timers,
      },
    );
    const second = hubOf({
      servers: { filesystem: filesystemServer(dir), everything: EVERYTHING },
    });
    await Promise.all([first.hub.start(), second.hub.start()]);
    const bytes = familyWires(first.registry, "mcp:everything");
    expect(bytes).not.toBe("");
    expect(familyWires(second.registry, "mcp:everything")).toBe(bytes);
    expect(familyWires(second.registry, "mcp:filesystem")).toBe(
      familyWires(first.registry, "mcp:filesystem"),
    );

    const before = first.hub.state("everything");
    if (before?.kind !== "connected" || before.pid === undefined) throw new Error("not connected");
    process.kill(before.pid, "SIGKILL");
    await vi.waitFor(() => expect(timers.pending).toBe(1), WAIT);
    timers.fire();
    await vi.waitFor(() => expect(first.hub.state("everything")?.kind).toBe("connected"), WAIT);
    expect(familyWires(first.registry, "mcp:everything")).toBe(bytes);
  });

  it("answers a call with the server's result", async () => {
    const { hub, registry } = hubOf({
      servers: { everything: EVERYTHING, filesystem: filesystemServer(dir) },
    });
    await hub.start();

    expect(await callTool(registry, "mcp__everything__echo", { message: "hello" })).toEqual({
      outcome: "ok",
      output: mcpAnswer("everything", "echo", "Echo: hello"),
    });
    const read = await callTool(registry, "mcp__filesystem__read_text_file", {
      path: join(dir, "notes.txt"),
    });
    expect(read).toEqual({
      outcome: "ok",
      output: mcpAnswer("filesystem", "read_text_file", "buy milk\nwater the plants\n"),
    });
  });

  it("describes images and embedded resources instead of pasting their bytes", async () => {
    const { hub, registry } = hubOf({ servers: { everything: EVERYTHING } });
    await hub.start();

    const image = await callTool(registry, "mcp__everything__get-tiny-image", {});
    expect(image.output).toMatch(
      /^<untrusted source="MCP server everything, tool get-tiny-image">\nHere's the image you requested:\n\[image: image\/png, \d+ KB\]\n/,
    );
    const resource = await callTool(registry, "mcp__everything__get-resource-reference", {
      resourceType: "Text",
      resourceId: 2,
    });
    expect(resource.output).toContain("[resource: demo://resource/dynamic/text/2 (text/plain)]\n");
  });

  it("answers a server's error result with a clear error line", async () => {
    const { hub, registry } = hubOf({ servers: { filesystem: filesystemServer(dir) } });
    await hub.start();

    const run = await callTool(registry, "mcp__filesystem__read_text_file", {
      path: join(dir, "missing.txt"),
    });
    expect(run.outcome).toBe("error");
    expect(run.output).toMatch(
      /^mcp__filesystem__read_text_file failed: the MCP server filesystem reported an error from its tool read_text_file:\n.*ENOENT/,
    );
  });

  it("keeps a killed server's tools, absent with the reason, and brings them back on reconnect", async () => {
    const timers = new ManualTimers();
    const { hub, registry } = hubOf({ servers: { everything: EVERYTHING } }, { timers });
    await hub.start();
    const state = hub.state("everything");
    if (state?.kind !== "connected" || state.pid === undefined) throw new Error("not connected");

    process.kill(state.pid, "SIGKILL");
    await vi.waitFor(() => expect(hub.state("everything")?.kind).toBe("waiting"), WAIT);

    const reason =
      "MCP server everything is not connected: was killed by SIGKILL (retrying, attempt 1 next)";
    expect(hub.capabilities()["mcp:everything"]).toEqual({ available: false, reason });
    expect(registry.has("mcp__everything__echo")).toBe(true);
    const contract = freeze(registry, { capabilities: hub.capabilities() });
    expect(contract.resolution.states.get("mcp__everything__echo")).toMatchObject({
      status: "absent",
      reason,
    });

    timers.fire();
    await vi.waitFor(() => expect(hub.state("everything")?.kind).toBe("connected"), WAIT);
    expect(hub.capabilities()["mcp:everything"]).toEqual({ available: true });
    const again = hub.state("everything");
    expect(again?.kind === "connected" && again.pid).not.toBe(state.pid);
    expect(await callTool(registry, "mcp__everything__echo", { message: "back" })).toEqual({
      outcome: "ok",
      output: mcpAnswer("everything", "echo", "Echo: back"),
    });
  });

  it("keeps a server with a bad command absent with the reason, without holding up the others", async () => {
    const timers = new ManualTimers();
    const { hub, registry } = hubOf(
      {
        servers: {
          broken: { command: join(dir, "no-such-server") },
          nodirs: filesystemServer(join(dir, "no-such-folder")),
          everything: EVERYTHING,
        },
      },
      { timers },
    );
    await hub.start();

    const capabilities = hub.capabilities();
    expect(capabilities["mcp:everything"]).toEqual({ available: true });
    expect(capabilities["mcp:broken"]).toEqual({
      available: false,
      reason: `MCP server broken is not connected: spawn ${join(dir, "no-such-server")} ENOENT (retrying, attempt 2 next)`,
    });
    expect(capabilities["mcp:nodirs"]).toEqual({
      available: false,
      reason:
        "MCP server nodirs is not connected: exited with code 1: Error: None of the specified directories are accessible (retrying, attempt 2 next)",
    });
    expect(registry.families()).toEqual(["mcp:everything"]);
  });

  it("waits twice as long after each failed attempt, up to the maximum", async () => {
    const timers = new ManualTimers();
    const { hub } = hubOf(
      {
        servers: { broken: { command: join(dir, "no-such-server") } },
        reconnect: { base_ms: 100, max_ms: 400 },
      },
      { timers, random: () => 1 },
    );
    await hub.start();
    for (let attempt = 2; attempt <= 5; attempt++) {
      await vi.waitFor(() => expect(timers.pending).toBe(1), WAIT);
      timers.fire();
      await vi.waitFor(
        () => expect(hub.state("broken")).toMatchObject({ kind: "waiting", attempt: attempt + 1 }),
        WAIT,
      );
    }
    expect(timers.delays).toEqual([100, 200, 400, 400, 400]);
  });

  it("starts a command server with env: filled from the environment and cwd: from the config's folder", async () => {
    await mkdir(join(dir, "shared"), { recursive: true });
    const { hub, registry } = hubOf(
      {
        servers: {
          everything: { ...EVERYTHING, env: { GREETING: `hello \${WHO}` } },
          files: { ...filesystemServer("."), cwd: "shared" },
        },
      },
      { env: { WHO: "world" }, baseDir: dir },
    );
    await hub.start();

    const env = await callTool(registry, "mcp__everything__get-env", {});
    expect(JSON.parse(mcpText(env.output))).toMatchObject({ GREETING: "hello world" });
    const allowed = await callTool(registry, "mcp__files__list_allowed_directories", {});
    expect(allowed.output).toContain(join(dir, "shared"));
  });

  it("uses full schemas from a server configured with defer: false", async () => {
    const { hub, registry } = hubOf({ servers: { everything: { ...EVERYTHING, defer: false } } });
    await hub.start();
    expect(registry.list().every((tool) => tool.defer === false)).toBe(true);
  });

  it("terminates the servers' processes on close", async () => {
    const { hub } = hubOf({
      servers: { everything: EVERYTHING, filesystem: filesystemServer(dir) },
    });
    await hub.start();
    const pids = hub.servers().map((server) => {
      const state = hub.state(server);
      if (state?.kind !== "connected" || state.pid === undefined) throw new Error("not connected");
      return state.pid;
    });

    await hub.close();

    expect(pids.filter(isRunning)).toEqual([]);
    expect(hub.capabilities()["mcp:everything"]).toEqual({
      available: false,
      reason:
        "MCP server everything is not connected: the bot stopped it (shutting down, or its config changed)",
    });
  });
  it("applies a re-read config: keeps unchanged servers, starts new ones, stops removed ones", async () => {
    const { hub, registry } = hubOf({ servers: { everything: EVERYTHING } });
    await hub.start();
    const first = hub.state("everything");
    if (first?.kind !== "connected" || first.pid === undefined) throw new Error("not connected");

    await hub.update(mcpSection.parse({ servers: { everything: EVERYTHING, fixture: FIXTURE } }));
    expect(hub.state("everything")).toEqual(first);
    expect(hub.state("fixture")?.kind).toBe("connected");
    expect(registry.families()).toEqual(["mcp:everything", "mcp:fixture"]);

    await hub.update(mcpSection.parse({ servers: { fixture: FIXTURE } }));
    expect(hub.servers()).toEqual(["fixture"]);
    expect(registry.families()).toEqual(["mcp:fixture"]);
    expect(Object.keys(hub.capabilities())).toEqual(["mcp:fixture"]);
    expect(isRunning(first.pid)).toBe(false);
  });
});

describe("McpHub with a fixture server built on the SDK", () => {
  it("reads every page of tools/list and maps names providers refuse to ids that reach the right tool", async () => {
    const { hub, registry } = hubOf({ servers: { fixture: FIXTURE } });
    await hub.start();

    const dotted = mcpToolId("fixture", DOTTED_TOOL);
    const long = mcpToolId("fixture", LONG_TOOL);
    expect(registry.list().map((tool) => tool.id)).toEqual(
      [
        "mcp__fixture__add_tool",
        "mcp__fixture__echo",
        "mcp__fixture__exit",
        "mcp__fixture__fail",
        "mcp__fixture__hang",
        "mcp__fixture__picture",
        dotted,
        long,
      ].sort(),
    );
    expect(dotted).toMatch(/^mcp__fixture__repo_search_[0-9a-f]{8}$/);
    expect(long).toHaveLength(64);
    expect((await callTool(registry, dotted, {})).output).toBe(
      mcpAnswer("fixture", DOTTED_TOOL, "called repo.search"),
    );
    expect((await callTool(registry, long, {})).output).toBe(
      mcpAnswer("fixture", LONG_TOOL, `called ${LONG_TOOL}`),
    );
  });

  it("refreshes the family when the server announces that its tools changed", async () => {
    const { hub, registry } = hubOf({ servers: { fixture: FIXTURE } });
    await hub.start();
    expect(registry.has("mcp__fixture__late_tool")).toBe(false);

    await callTool(registry, "mcp__fixture__add_tool", { name: "late_tool" });

    await vi.waitFor(() => expect(registry.has("mcp__fixture__late_tool")).toBe(true), WAIT);
    expect((await callTool(registry, "mcp__fixture__late_tool", {})).output).toBe(
      mcpAnswer("fixture", "late_tool", "called late_tool"),
    );
  });

  it("describes an image with structured data and no text, and hands the image on as a file", async () => {
    const { hub, registry } = hubOf({ servers: { fixture: FIXTURE } });
    await hub.start();
    // Without a store for answer files (no Redis here) the model is told the file was not sent.
    expect((await callTool(registry, "mcp__fixture__picture", {})).output).toBe(
      `${mcpAnswer("fixture", "picture", '[image: image/png, 3 KB]\n{"height":10,"width":20}')}\n\n[files not sent: image-1.png: this bot keeps no files for answers]`,
    );
    const tool = registry.get("mcp__fixture__picture");
    const output = await tool?.execute(
      {},
      { ...TOOL_CONTEXT, signal: new AbortController().signal },
    );
    expect(output).toMatchObject({ files: [{ name: "image-1.png", type: "image/png" }] });
    const [file] = (output as ToolResult).files;
    expect(Buffer.compare(Buffer.from(file?.bytes ?? []), Buffer.alloc(3 * 1024))).toBe(0);
  });

  it("cancels a call that outlives call_timeout_ms and stays connected", async () => {
    const { hub, registry } = hubOf({ servers: { fixture: { ...FIXTURE, call_timeout_ms: 200 } } });
    await hub.start();

    const run = await callTool(registry, "mcp__fixture__hang", {});
    expect(run).toEqual({
      outcome: "error",
      output:
        "mcp__fixture__hang failed: the MCP server fixture did not answer hang within 200 ms (mcp.call_timeout_ms), so the call was cancelled. Try again later or do without it",
    });
    expect((await callTool(registry, "mcp__fixture__echo", { text: "still here" })).output).toBe(
      mcpAnswer("fixture", "echo", "echo: still here"),
    );
  });

  it("stops a call when the turn's signal aborts", async () => {
    const { hub, registry } = hubOf({ servers: { fixture: FIXTURE } });
    await hub.start();
    const hang = registry.get("mcp__fixture__hang");
    if (hang === undefined) throw new Error("no hang tool");
    const controller = new AbortController();

    const call = hang.execute({}, { ...TOOL_CONTEXT, signal: controller.signal });
    controller.abort(new Error("turn cancelled"));

    await expect(call).rejects.toThrow("the call to hang was cancelled");
  });

  it("says how a server exited: its code and its last line on stderr, which goes to the log", async () => {
    const timers = new ManualTimers();
    const log: string[] = [];
    const logger = {
      info: (message: string) => void log.push(`info: ${message}`),
      warn: (message: string) => void log.push(`warn: ${message}`),
    };
    const { hub, registry } = hubOf({ servers: { fixture: FIXTURE } }, { timers, logger });
    await hub.start();

    await callTool(registry, "mcp__fixture__exit", { code: 3 });

    await vi.waitFor(() => expect(hub.state("fixture")?.kind).toBe("waiting"), WAIT);
    expect(hub.capabilities()["mcp:fixture"]).toEqual({
      available: false,
      reason:
        "MCP server fixture is not connected: exited with code 3: fixture: exiting on request (retrying, attempt 1 next)",
    });
    expect(log).toContain("info: MCP server fixture: fixture: exiting on request");
    expect(log).toContain(
      "warn: MCP server fixture disconnected: exited with code 3: fixture: exiting on request",
    );
    const run = await callTool(registry, "mcp__fixture__echo", { text: "anyone?" });
    expect(run.outcome).toBe("error");
    expect(run.output).toBe(
      "mcp__fixture__echo failed: the MCP server fixture is not connected: exited with code 3: fixture: exiting on request (retrying, attempt 1 next). Try again later or do without it",
    );
  });
});
