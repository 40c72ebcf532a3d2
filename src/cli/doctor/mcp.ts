import { dirname, resolve } from "node:path";
import { ToolRegistry } from "../../core/tools/registry.ts";
import { McpHub } from "../../tools/mcp/index.ts";
import { detailOf } from "../../tools/mcp/server-state.ts";
import { type DoctorContext, type Finding, ok, problem } from "./finding.ts";

/**
 * Each configured MCP server connects and lists its tools, as at start: every
 * server at once, each within its own connect timeout.
 */
export async function checkMcpServers(
  context: DoctorContext,
  configFile: string | undefined,
): Promise<Finding[]> {
  const { env, config } = context;
  if (Object.keys(config.mcp.servers).length === 0) return [];
  const hub = new McpHub(config.mcp, {
    registry: new ToolRegistry(),
    env,
    ...(configFile ? { baseDir: dirname(resolve(configFile)) } : {}),
  });
  try {
    await hub.start();
    return hub.servers().map((server) => {
      const state = hub.state(server);
      const check = `mcp:${server}`;
      if (state?.kind === "connected") return ok(check, `connected, ${state.tools} tool(s)`);
      return problem(
        check,
        `not connected: ${state ? detailOf(state) : "not started"}`,
        `check mcp.servers.${server} in the config file (command, url, headers) and that the server runs`,
      );
    });
  } finally {
    await hub.close();
  }
}
