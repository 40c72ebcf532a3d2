import type { Capabilities } from "./core/availability/capabilities.ts";
import { defineSkillTool } from "./core/skills/index.ts";
import { ToolRegistry } from "./core/tools/registry.ts";
import { builtinTools } from "./tools/index.ts";

const NO_SKILLS = { skills: [], enabled: [], layers: [] };

/**
 * The registry and capabilities this host runs with. Built-in tools only for
 * now; configured providers and MCP servers add tools and capabilities here.
 */
export function hostRegistry(_env: Readonly<Record<string, string | undefined>>): {
  registry: ToolRegistry;
  capabilities: Capabilities;
} {
  // The skill tool answers from the turn's own skills, handed in through the tool context.
  const skill = defineSkillTool((ctx) => ctx.skills ?? NO_SKILLS);
  return { registry: new ToolRegistry([...builtinTools(), skill]), capabilities: {} };
}
