import { z } from "zod";
import { defineTool, type Tool, type ToolContext } from "../tools/tool.ts";
import { skillToolResult } from "./answers.ts";
import type { SkillResolution } from "./resolve.ts";

/** The resident tool that loads a skill's instructions on demand. */
export const SKILL_TOOL_ID = "skill";

export const skillToolParameters = z.object({
  name: z.string().describe("The skill's name, as listed under Skills."),
});

const DESCRIPTION =
  "Load the full instructions of a skill listed under Skills, by name. Call it before a task the skill covers, then follow what it returns.";

/**
 * The `skill` tool. Its bytes never change (the skills themselves are in the
 * skills block), so it sits in the cached prefix; what it answers depends on
 * the channel the call comes from, which `resolve` finds from the context.
 *
 * @example
 * registry.register(defineSkillTool((ctx) => skillsFor(ctx.platform, ctx.workspace, ctx.channel)));
 */
export function defineSkillTool(
  resolve: (ctx: ToolContext) => SkillResolution | Promise<SkillResolution>,
): Tool<typeof skillToolParameters> {
  return defineTool({
    id: SKILL_TOOL_ID,
    description: DESCRIPTION,
    parameters: skillToolParameters,
    execute: async ({ name }, ctx) => skillToolResult(await resolve(ctx), name.trim()),
  });
}
