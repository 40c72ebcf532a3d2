import type { ChatScope } from "../availability/scopes.ts";
import { formatToolsCommand, type ToolsCommand } from "./parse.ts";

/** The person who sent the command. */
export interface Actor {
  /** The platform's user id, as the config's owners and admins lists name it. */
  readonly id: string;
  /**
   * Whether the platform says this person administers the workspace: a Slack
   * workspace admin or owner, a Discord member with Manage Server, a Telegram
   * chat admin. The channel adapter finds out; the core only reads it.
   */
  readonly isPlatformAdmin: boolean;
}

/** Who may change which scope, from the config file. */
export interface CommandPolicy {
  /** May change every scope, global included. */
  readonly owners: readonly string[];
  /** May change the conversation, channel and workspace scopes, like platform admins. */
  readonly admins: readonly string[];
  /** Who may change a conversation's own tools: anyone in it, or admins only. */
  readonly conversation: "anyone" | "admins";
}

export const DEFAULT_COMMAND_POLICY: CommandPolicy = Object.freeze({
  owners: Object.freeze([]) as readonly string[],
  admins: Object.freeze([]) as readonly string[],
  conversation: "anyone",
});

export type Permission =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: string };

/** Who may change the channel and workspace scopes, as every refusal names them. */
export const ADMINS = "workspace admins or the bot's configured admins";

/**
 * Whether `actor` may change `scope` (rule 8). Owners may change every scope;
 * platform admins and configured admins every scope but global; anyone the
 * conversation, unless the policy keeps that to admins too.
 *
 * A refusal says who may make the change and, when `command` is given and the
 * actor may change a narrower scope, the command that would work for them:
 * "Only workspace admins or the bot's configured admins can change the channel
 * scope. Ask one of them, or use the conversation scope: /tools off web_search".
 */
export function checkPermission(
  actor: Actor,
  scope: ChatScope,
  policy: CommandPolicy,
  command?: ToolsCommand,
): Permission {
  if (mayChange(actor, scope, policy)) return { allowed: true };
  const who =
    scope === "global"
      ? policy.owners.length === 0
        ? "No owners are configured, so the global scope can only be changed in the config file."
        : "Only the bot's owners (listed in the config file) can change the global scope."
      : `Only ${ADMINS} can change the ${scope} scope.`;
  const ask = scope === "global" && policy.owners.length === 0 ? "" : " Ask one of them";
  const fallback = (["workspace", "conversation"] as const).find(
    (narrower) => narrower !== scope && mayChange(actor, narrower, policy),
  );
  if (fallback === undefined || scope === "conversation") {
    return { allowed: false, reason: ask === "" ? who : `${who}${ask}.` };
  }
  // The fallback is always narrower: whoever may change the workspace may change the channel.
  const retry = command ? withScope(command, fallback) : undefined;
  const use = `use the ${fallback} scope${retry ? `: ${formatToolsCommand(retry)}` : "."}`;
  return {
    allowed: false,
    reason: ask === "" ? `${who} You can ${use}` : `${who}${ask}, or ${use}`,
  };
}

/** Whether `actor` may change `scope`: the rule {@link checkPermission} explains when it says no. */
export function mayChange(actor: Actor, scope: ChatScope, policy: CommandPolicy): boolean {
  const owner = policy.owners.includes(actor.id);
  if (owner) return true;
  const admin = actor.isPlatformAdmin || policy.admins.includes(actor.id);
  switch (scope) {
    case "global":
      return false;
    case "workspace":
    case "channel":
      return admin;
    case "conversation":
      return admin || policy.conversation === "anyone";
  }
}

function withScope(command: ToolsCommand, scope: ChatScope): ToolsCommand | undefined {
  return "scope" in command ? { ...command, scope } : undefined;
}
