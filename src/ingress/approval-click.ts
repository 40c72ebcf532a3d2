import type { Actor } from "../core/commands/permissions.ts";
import type { Approvals, ClickAnswer } from "../ports/approvals.ts";
import { parseApprovalPayload } from "../ports/approvals.ts";

/**
 * A click on an approval request's button, on any platform, answered the
 * same way: the payload read with the one grammar (`ap:<id>:<a|c|d|s>`,
 * src/ports/approvals.ts), the decision handed to the approvals desk, and
 * what to tell the clicker returned. The channel only says it where the
 * platform lets it say it privately; the request message itself is edited
 * by the worker that resumes the turn, never here.
 *
 * @example
 * const reply = await answerApprovalClick(runtime.approvals, {
 *   payload: action.value, actor, name: "Ada", platform: "slack",
 * });
 * await respond({ response_type: "ephemeral", text: reply.text });
 */

/** What a click carries, read from the platform's payload. */
export interface ApprovalClickInput {
  /** The button's value, custom id or callback data, exactly as it came back. */
  readonly payload: string;
  readonly actor: Actor;
  readonly name?: string;
  readonly platform: string;
}

/**
 * What to tell the clicker: the desk's answer, the request's full arguments
 * (the "show" control), or a failure here that decided nothing. Only
 * `recorded` changed anything.
 */
export type ApprovalReply =
  | ClickAnswer
  | { readonly kind: "details"; readonly text: string }
  | { readonly kind: "failed"; readonly text: string };

/** The prefix of every approval payload: a click that starts so is an approval click, readable or not. */
const APPROVAL_PREFIX = "ap:";

/** Whether a control's payload claims to be an approval's (and so is answered here, even when malformed). */
export function isApprovalPayload(payload: string): boolean {
  return payload.startsWith(APPROVAL_PREFIX);
}

export const APPROVAL_REPLIES = {
  unreadable:
    "That button is not an approval request I can read (it may belong to an older version of me), so nothing was decided. Type /approve <id> or /deny <id> with the id the request shows.",
  noDesk:
    "This bot takes no approval decisions here (its process has no approvals desk), so nothing was decided.",
  noDetails: "I have no waiting request with that id: it may have been decided or expired.",
} as const;

/**
 * Answers one approval click. Never throws (rule 11): a payload this bot did
 * not make, a missing desk and a desk that fails (Redis away) each become a
 * clear answer that decided nothing.
 */
export async function answerApprovalClick(
  approvals: Approvals | undefined,
  click: ApprovalClickInput,
): Promise<ApprovalReply> {
  const parsed = parseApprovalPayload(click.payload);
  if (parsed === undefined) return { kind: "unknown", text: APPROVAL_REPLIES.unreadable };
  if (approvals === undefined) return { kind: "unknown", text: APPROVAL_REPLIES.noDesk };
  try {
    if (parsed.control === "show") {
      const details = await approvals.details(parsed.id);
      return details === undefined
        ? { kind: "unknown", text: APPROVAL_REPLIES.noDetails }
        : { kind: "details", text: details };
    }
    return await approvals.decide({
      id: parsed.id,
      choice: parsed.control,
      actor: click.actor,
      ...(click.name !== undefined ? { name: click.name } : {}),
      platform: click.platform,
    });
  } catch (error) {
    return { kind: "failed", text: decisionFailed(error) };
  }
}

/** What the clicker (or the person who typed /approve) hears when the desk failed: nothing was decided. */
export function decisionFailed(error: unknown): string {
  return `Your decision could not be recorded just now (${describe(error)}), so nothing was decided. Try again in a moment.`;
}

/** Whether the clicker should have to dismiss the answer: a refusal or a failure, not a plain outcome. */
export function isRefusal(reply: ApprovalReply): boolean {
  return reply.kind === "refused" || reply.kind === "unknown" || reply.kind === "failed";
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length <= 120 ? text : `${text.slice(0, 119)}…`;
}
