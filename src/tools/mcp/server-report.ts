import { type Capabilities, capabilityStatus } from "../../core/availability/capabilities.ts";
import type { ToolRegistry } from "../../core/tools/registry.ts";

/** One configured MCP server as `switchyard tools` and the console show it: connected, or why not. */
export interface McpServerReport {
  readonly server: string;
  readonly tools: number;
  readonly available: boolean;
  readonly reason?: string;
}

/** Each configured server with its tool count, and the capability's reason when it is not available. */
export function mcpServerReports(
  servers: readonly string[],
  registry: Pick<ToolRegistry, "list">,
  capabilities: Capabilities,
): McpServerReport[] {
  return servers.map((server) => {
    const status = capabilityStatus(capabilities, `mcp:${server}`);
    const tools = registry.list().filter((t) => t.family === `mcp:${server}`).length;
    return status.available
      ? { server, tools, available: true }
      : { server, tools, available: false, reason: status.reason };
  });
}
