import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolRun } from "../../src/core/agent/loop.ts";
import { mcpSection } from "../../src/core/config/mcp-section.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { McpHub, type McpHubOptions, type McpTimers } from "../../src/tools/mcp/index.ts";
import { runTool } from "../../src/turn/tool-runner.ts";
import { FIXTURE_MCP_SERVER } from "../fakes/mcp-server.ts";

const BIN = fileURLToPath(new URL("../../node_modules/.bin/", import.meta.url));

/** The reference servers and the fixture, as `mcp.servers` entries. */
export const EVERYTHING = { command: join(BIN, "mcp-server-everything"), args: ["stdio"] };
export const filesystemServer = (dir: string) => ({
  command: join(BIN, "mcp-server-filesystem"),
  args: [dir],
});
export const FIXTURE = { command: process.execPath, args: ["--import", "tsx", FIXTURE_MCP_SERVER] };

/**
 * Reconnect timers the test fires by hand, so "down, waiting to retry" is a
 * state a test can look at instead of a window it has to catch.
 */
export class ManualTimers implements McpTimers {
  readonly #pending = new Map<number, { callback: () => void; ms: number }>();
  /** Every delay asked for, in order. */
  readonly delays: number[] = [];
  #next = 0;

  setTimeout(callback: () => void, ms: number): number {
    const id = ++this.#next;
    this.#pending.set(id, { callback, ms });
    this.delays.push(ms);
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  get pending(): number {
    return this.#pending.size;
  }

  /** Runs every waiting reconnect now. */
  fire(): void {
    const due = [...this.#pending.values()];
    this.#pending.clear();
    for (const { callback } of due) callback();
  }
}

/** Hubs made by {@link hubOf}; close them after each test. */
export const openHubs: McpHub[] = [];

/** A hub over a fresh registry, built from an `mcp:` section as a config file would give it. */
export function hubOf(
  section: unknown,
  options: Partial<McpHubOptions> = {},
): { hub: McpHub; registry: ToolRegistry } {
  const registry = options.registry ?? new ToolRegistry();
  const hub = new McpHub(mcpSection.parse(section), { ...options, registry });
  openHubs.push(hub);
  return { hub, registry };
}

export const TOOL_CONTEXT = {
  platform: "test",
  workspace: "w1",
  channel: "c1",
  conversation: "c1",
  user: "u1",
};

/** Calls a registered tool the way a turn does: through the tool runner. */
export function callTool(
  registry: ToolRegistry,
  id: string,
  args: Record<string, unknown>,
): Promise<ToolRun> {
  const tool = registry.get(id);
  if (tool === undefined) throw new Error(`no tool ${id} in the registry`);
  const call = { id: "call_1", type: "function" as const, function: { name: id, arguments: "{}" } };
  return runTool(tool, args, call, TOOL_CONTEXT, { timeoutMs: 20_000 });
}

/** The wire bytes of a family, in registry order. */
export function familyWires(registry: ToolRegistry, family: string): string {
  return registry
    .list()
    .filter((tool) => tool.family === family)
    .map((tool) => tool.wire)
    .join("\n");
}

/** Whether a process is still running. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What a successful MCP call answers the model: the server's text as untrusted text, named by server and tool. */
export function mcpAnswer(server: string, tool: string, text: string): string {
  return `<untrusted source="MCP server ${server}, tool ${tool}">\n${text}\n</untrusted>`;
}

/** The text inside an MCP call's untrusted block. */
export function mcpText(output: string): string {
  return output.slice(output.indexOf("\n") + 1, output.lastIndexOf("\n</untrusted>"));
}
