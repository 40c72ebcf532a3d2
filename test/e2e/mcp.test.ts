import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runToolsCommand } from "../../src/cli/tools.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { McpHub } from "../../src/tools/mcp/index.ts";
import { EVERYTHING, filesystemServer } from "../support/mcp.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

let dir: string;
let shared: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sy-mcp-e2e-"));
  shared = mkdtempSync(join(tmpdir(), "sy-mcp-files-"));
  writeFileSync(join(shared, "notes.txt"), "the launch is on Tuesday\n");
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(shared, { recursive: true, force: true });
});

/** The config file a person would write, with both reference servers. */
function configFile(tools = ""): string {
  const file = join(dir, `switchyard-${Math.random().toString(36).slice(2)}.yaml`);
  const fs = filesystemServer(shared);
  writeFileSync(
    file,
    [
      "mcp:",
      "  servers:",
      "    everything:",
      `      command: ${JSON.stringify(EVERYTHING.command)}`,
      `      args: ${JSON.stringify(EVERYTHING.args)}`,
      "    filesystem:",
      `      command: ${JSON.stringify(fs.command)}`,
      `      args: ${JSON.stringify(fs.args)}`,
      tools,
    ].join("\n"),
  );
  return file;
}

interface Report {
  mcp: { server: string; tools: number; available: boolean; reason?: string }[];
  available: number;
  resident: { id: string }[];
  deferred: string[] | { id: string }[];
  disabled: { id: string; by: string; reason: string }[];
}

async function switchyardTools(args: string[]): Promise<Report> {
  let out = "";
  const code = await runToolsCommand([...args, "--json"], {
    env: {},
    readFile: (file) => readFileSync(file, "utf8"),
    stdout: (text) => {
      out += text;
    },
    stderr: () => {},
  });
  expect(code).toBe(0);
  return JSON.parse(out) as Report;
}

const ids = (list: Report["deferred"]) =>
  list.map((entry) => (typeof entry === "string" ? entry : entry.id));
const mcpIn = (list: Report["deferred"], server: string) =>
  ids(list).filter((id) => id.startsWith(`mcp__${server}__`));

describe("MCP servers in `switchyard tools`", () => {
  it("lists both servers' tools as deferred families", async () => {
    const report = await switchyardTools(["--config", configFile()]);
    expect(mcpIn(report.deferred, "everything")).toContain("mcp__everything__echo");
    expect(mcpIn(report.deferred, "filesystem")).toContain("mcp__filesystem__read_text_file");
  }, 60_000);

  it("hides both with mcp: false, and mcp:filesystem=on in a deeper scope brings one back", async () => {
    const off = configFile("tools:\n  mcp: false\n");
    const hidden = await switchyardTools(["--config", off]);
    expect(mcpIn(hidden.deferred, "everything")).toEqual([]);
    expect(mcpIn(hidden.deferred, "filesystem")).toEqual([]);
    const disabled = hidden.disabled.map((d) => d.id);
    expect(disabled).toContain("mcp__everything__echo");
    expect(disabled).toContain("mcp__filesystem__read_text_file");
    expect(hidden.disabled.find((d) => d.id === "mcp__everything__echo")?.by).toBe("global");

    const back = await switchyardTools(["--config", off, "--tools", "mcp:filesystem=on"]);
    expect(mcpIn(back.deferred, "everything")).toEqual([]);
    expect(mcpIn(back.deferred, "filesystem")).toContain("mcp__filesystem__read_text_file");
  }, 60_000);

  it("lists a working server's tools when another cannot start, and says why that one is missing", async () => {
    const file = join(dir, "broken.yaml");
    writeFileSync(
      file,
      [
        "mcp:",
        "  connect_timeout_ms: 5000",
        "  servers:",
        "    everything:",
        `      command: ${JSON.stringify(EVERYTHING.command)}`,
        `      args: ${JSON.stringify(EVERYTHING.args)}`,
        "    broken:",
        `      command: ${JSON.stringify(join(dir, "no-such-server"))}`,
      ].join("\n"),
    );
    const report = await switchyardTools(["--config", file]);
    expect(mcpIn(report.deferred, "everything")).toContain("mcp__everything__echo");
    // A server that never connected has no tools to list; the servers section says why.
    expect([...ids(report.deferred), ...report.disabled.map((d) => d.id)]).not.toContainEqual(
      expect.stringMatching(/^mcp__broken__/),
    );
    const everything = report.mcp.find((s) => s.server === "everything");
    expect(everything).toMatchObject({ available: true });
    expect(everything?.tools).toBeGreaterThan(5);
    expect(report.mcp.find((s) => s.server === "broken")).toMatchObject({
      available: false,
      tools: 0,
      reason: expect.stringMatching(/^MCP server broken is not connected: .*ENOENT/),
    });
  }, 60_000);
});

describe("an MCP call through the pipeline", () => {
  let pipe: Pipeline | undefined;
  let hub: McpHub | undefined;
  afterEach(async () => {
    await pipe?.close();
    await hub?.close();
    pipe = hub = undefined;
  });

  it("loads the deferred tool with tool_search, calls the real server and gives the model its result", async () => {
    const registry = new ToolRegistry();
    const config = parseConfig(readFileSync(configFile(), "utf8"), "switchyard.yaml");
    hub = new McpHub(config.mcp, { registry });
    await hub.start();
    const live = hub;
    pipe = await startPipeline({ registry, capabilities: () => live.capabilities() });
    pipe.fake.script(
      {
        toolCalls: [
          {
            id: "c1",
            name: "tool_search",
            arguments: { load: ["mcp__filesystem__read_text_file"] },
          },
        ],
      },
      {
        toolCalls: [
          {
            id: "c2",
            name: "mcp__filesystem__read_text_file",
            arguments: { path: join(shared, "notes.txt") },
          },
        ],
      },
      { content: "The launch is on Tuesday." },
    );
    await pipe.app.queue.enqueue(pipe.message("when is the launch? it's in notes.txt"));
    const [post] = await pipe.posts(1, 30_000);
    expect(post?.text).toBe("The launch is on Tuesday.");
    const third = pipe.fake.requests[2]?.body;
    expect(third.messages.at(-1)).toMatchObject({
      role: "tool",
      tool_call_id: "c2",
      content: expect.stringContaining("the launch is on Tuesday"),
    });
    // Loaded in the turn, the tool was offered in full from the next request on.
    const names = (third.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
    expect(names).toContain("mcp__filesystem__read_text_file");
  }, 60_000);
});
