import type { Choice } from "../core/approvals/approval.ts";
import type { Actor } from "../core/commands/permissions.ts";

/**
 * A click on an approval request (a Slack button, a Discord button, a
 * Telegram inline key) or a typed `/approve <id>` / `/deny <id>`, as data.
 * The channel reads the platform's payload into this; it never decides.
 */
export interface ApprovalClick {
  /** The request's id (`ApprovalWait.id`). */
  readonly id: string;
  readonly choice: Choice;
  /** Who clicked: the platform's user id and whether the platform says they administer the workspace. */
  readonly actor: Actor;
  /** The clicker's display name, when the platform gave one. */
  readonly name?: string;
  readonly platform: string;
}

/**
 * What the clicker is told. Only `recorded` changed anything; the channel
 * shows the others only to the clicker where the platform allows (a Slack
 * ephemeral message, a Discord ephemeral reply, a Telegram callback alert).
 * The request message itself is edited by the worker that resumes the turn,
 * once, never by the channel.
 */
export type ClickAnswer =
  | { readonly kind: "recorded"; readonly text: string }
  /** Someone decided first: `text` names who and what. */
  | { readonly kind: "decided"; readonly text: string }
  /** This person may not decide: `text` says who may. */
  | { readonly kind: "refused"; readonly text: string }
  /** No request has this id (a malformed payload, or one long finished). */
  | { readonly kind: "unknown"; readonly text: string };

/**
 * The approvals desk every ingress process has: it records a decision
 * atomically (the first wins), wakes the conversation so any worker resumes
 * the turn, and shows a request's full arguments on request.
 */
export interface Approvals {
  decide(click: ApprovalClick): Promise<ClickAnswer>;
  /** The request's calls with their full arguments, for the "Show arguments" control; undefined when unknown. */
  details(id: string): Promise<string | undefined>;
}

/**
 * The payload of an approval control, the same on every platform:
 * `ap:<id>:<a|c|d|s>` (approve, approve for this conversation, deny, show
 * the full arguments). 19 bytes: inside Telegram's 64-byte callback data,
 * Discord's 100-character custom id and Slack's action value.
 */
export type ApprovalControl = Choice | "show";

const CONTROL_LETTERS: Readonly<Record<ApprovalControl, string>> = {
  approve: "a",
  approve_conversation: "c",
  deny: "d",
  show: "s",
};

const APPROVAL_PAYLOAD = /^ap:([a-z0-9]{12}):([acds])$/;

export function approvalPayload(id: string, control: ApprovalControl): string {
  return `ap:${id}:${CONTROL_LETTERS[control]}`;
}

/** Reads a payload of {@link approvalPayload}; undefined for anything else (never a guess). */
export function parseApprovalPayload(
  payload: string,
): { readonly id: string; readonly control: ApprovalControl } | undefined {
  const match = APPROVAL_PAYLOAD.exec(payload);
  if (!match) return undefined;
  const letter = match[2];
  const control = (Object.keys(CONTROL_LETTERS) as ApprovalControl[]).find(
    (c) => CONTROL_LETTERS[c] === letter,
  );
  return control === undefined ? undefined : { id: match[1] as string, control };
}
