import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type McpHttpFixture, startMcpHttpFixture } from "../fakes/mcp-server.ts";
import { callTool, hubOf, ManualTimers, mcpAnswer, openHubs } from "../support/mcp.ts";

const WAIT = { timeout: 20_000, interval: 20 };
const TOKEN = "t0ken-for-tests";

let fixture: McpHttpFixture;

beforeEach(async () => {
  fixture = await startMcpHttpFixture({ token: TOKEN });
});

afterEach(async () => {
  await Promise.all(openHubs.splice(0).map((hub) => hub.close()));
  await fixture.close();
});

const remote = () => ({ url: fixture.url, headers: { Authorization: `Bearer \${FIXTURE_TOKEN}` } });

describe("McpHub with a server over streamable HTTP", () => {
  it("sends headers filled in from the environment and answers calls", async () => {
    const secrets: string[] = [];
    const { hub, registry } = hubOf(
      { servers: { remote: remote() } },
      { env: { FIXTURE_TOKEN: TOKEN }, onSecret: (value) => secrets.push(value) },
    );
    await hub.start();

    expect(hub.capabilities()["mcp:remote"]).toEqual({ available: true });
    expect(await callTool(registry, "mcp__remote__echo", { text: "over http" })).toEqual({
      outcome: "ok",
      output: mcpAnswer("remote", "echo", "echo: over http"),
    });
    expect(secrets).toEqual([`Bearer ${TOKEN}`]);
  });

  it("does not connect or retry when a header's variable is not set", async () => {
    const timers = new ManualTimers();
    const { hub, registry } = hubOf({ servers: { remote: remote() } }, { env: {}, timers });
    await hub.start();

    expect(hub.capabilities()["mcp:remote"]).toEqual({
      available: false,
      reason: `MCP server remote is not connected: header Authorization of MCP server remote uses \${FIXTURE_TOKEN}, which is not set. Set FIXTURE_TOKEN in the environment of the switchyard process (or write the value without \${...}) (not retried until the bot restarts)`,
    });
    expect(timers.pending).toBe(0);
    expect(registry.size).toBe(0);
  });

  it("is absent with the HTTP status when the server refuses the token", async () => {
    const timers = new ManualTimers();
    const { hub } = hubOf(
      { servers: { remote: remote() } },
      { env: { FIXTURE_TOKEN: "wrong" }, timers },
    );
    await hub.start();

    const capability = hub.capabilities()["mcp:remote"];
    expect(capability?.available).toBe(false);
    expect(capability?.available === false && capability.reason).toMatch(
      /^MCP server remote is not connected: HTTP 401 \(the server refused the credentials: .*\(retrying, attempt 2 next\)$/,
    );
  });

  it("notices a server that went away on the next call, and reconnects when it is back", async () => {
    const timers = new ManualTimers();
    const { hub, registry } = hubOf(
      { servers: { remote: remote() } },
      { env: { FIXTURE_TOKEN: TOKEN }, timers },
    );
    await hub.start();

    await fixture.stop();
    const failed = await callTool(registry, "mcp__remote__echo", { text: "hello?" });
    expect(failed.outcome).toBe("error");
    expect(failed.output).toMatch(
      /^mcp__remote__echo failed: the call to echo on the MCP server remote failed: /,
    );
    await vi.waitFor(() => expect(hub.state("remote")?.kind).toBe("waiting"), WAIT);
    expect(hub.capabilities()["mcp:remote"]?.available).toBe(false);
    expect(registry.has("mcp__remote__echo")).toBe(true);

    await fixture.restart();
    timers.fire();
    await vi.waitFor(() => expect(hub.state("remote")?.kind).toBe("connected"), WAIT);
    expect((await callTool(registry, "mcp__remote__echo", { text: "again" })).output).toBe(
      mcpAnswer("remote", "echo", "echo: again"),
    );
  });
});
