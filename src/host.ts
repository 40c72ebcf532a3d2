import type { Capabilities } from "./core/availability/capabilities.ts";
import { ToolRegistry } from "./core/tools/registry.ts";
import { builtinTools } from "./tools/index.ts";

/**
 * The registry and capabilities this host runs with. Built-in tools only for
 * now; configured providers and MCP servers add tools and capabilities here.
 */
export function hostRegistry(_env: Readonly<Record<string, string | undefined>>): {
  registry: ToolRegistry;
  capabilities: Capabilities;
} {
  return { registry: new ToolRegistry(builtinTools()), capabilities: {} };
}
