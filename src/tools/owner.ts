import type { ToolContext } from "../core/tools/tool.ts";
import type { WorkspaceRef } from "../store/keys.ts";

/** One person in one workspace: whose notes, whose reminders. */
export interface ToolOwner extends WorkspaceRef {
  readonly user: string;
}

/** The person a turn speaks for: a tool's data is always theirs, never someone named in the arguments. */
export function ownerOf(ctx: ToolContext): ToolOwner {
  return { platform: ctx.platform, workspace: ctx.workspace, user: ctx.user };
}
