import type { Actor, CommandPolicy, Permission } from "../commands/permissions.ts";
import type { ApprovalPolicy, DecidedBy } from "./approval.ts";
import { whoMayDecide } from "./request.ts";

/** Whose request it is: the platform (owners and admins are listed as `platform:user`) and the person who asked. */
export interface RequestParties {
  readonly platform: string;
  readonly requester: DecidedBy;
}

/**
 * Whether `actor` may decide a request: the bot's owners always; besides
 * them, who the policy names: the person whose message started the turn,
 * admins (the platform's, or the config's `permissions.admins`), or anyone.
 *
 * @example
 * mayDecide({ id: "slack:U1", isPlatformAdmin: false }, DEFAULT_APPROVAL_POLICY, policy, { platform: "slack", requester: { user: "U1" } })
 * // { allowed: true }: U1 asked
 */
export function mayDecide(
  actor: Actor,
  approval: ApprovalPolicy,
  permissions: CommandPolicy,
  parties: RequestParties,
): Permission {
  const rules = approval.approvers;
  const allowed =
    permissions.owners.includes(actor.id) ||
    rules.includes("anyone") ||
    (rules.includes("admins") &&
      (actor.isPlatformAdmin || permissions.admins.includes(actor.id))) ||
    (rules.includes("requester") &&
      (actor.id === `${parties.platform}:${parties.requester.user}` ||
        actor.id === parties.requester.user));
  if (allowed) return { allowed: true };
  return {
    allowed: false,
    reason: `Only ${lowerFirst(whoMayDecide(approval, parties.requester))} can decide this request.`,
  };
}

function lowerFirst(text: string): string {
  return text.startsWith("Anyone") ? `a${text.slice(1)}` : text;
}
