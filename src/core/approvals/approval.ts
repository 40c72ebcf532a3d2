/**
 * Approvals: the third availability value, `ask`. A tool under `ask` is
 * offered to the model exactly as under `on`; a call of it waits for a
 * person's decision. The wait is a checkpointed state of the turn
 * ({@link ApprovalWait} in `Checkpoint.approval`): no worker holds it, the
 * first decision wins, and an approved call starts once.
 *
 * This file is the vocabulary both sides share: the worker that parks and
 * resumes the turn, and the channels that show the request and take the
 * clicks (through the `Approvals` port, src/ports/approvals.ts).
 */

/** One tool call of the waiting step, as the model made it. */
export interface PendingCall {
  /** The provider's tool call id: the result, when there is one, pairs with it (rule 6). */
  readonly callId: string;
  readonly tool: string;
  /** The arguments as the model sent them (a JSON string, possibly malformed). */
  readonly arguments: string;
}

/**
 * What a person (or the clock, or `/stop`) decided for a request. Every
 * call of the request gets this one verdict.
 * - `approved`: run the calls once each.
 * - `approved_conversation`: run them, and the tools are `on` at conversation scope from now on.
 * - `denied`: not run; the result names who denied them.
 * - `expired`: nobody decided in time; not run.
 * - `cancelled`: `/stop` or an interrupt ended the turn while it waited; not run.
 * - `superseded`: the person wrote instead of deciding (the `steer` queue mode); not run.
 */
export const VERDICTS = [
  "approved",
  "approved_conversation",
  "denied",
  "expired",
  "cancelled",
  "superseded",
] as const;
export type Verdict = (typeof VERDICTS)[number];

/** The verdicts a person gives with a button or `/approve` / `/deny`. */
export type Choice = "approve" | "approve_conversation" | "deny";

/** Who decided, as the request's edit and the call's result name them. */
export interface DecidedBy {
  /** The platform's user id (as `InboundMessage.user`). */
  readonly user: string;
  /** A display name when the platform gave one. */
  readonly name?: string;
}

export interface ApprovalDecision {
  readonly verdict: Verdict;
  /** Absent for `expired` (the clock decided). */
  readonly by?: DecidedBy;
  readonly at: number;
}

/**
 * A turn waiting for approval, as its checkpoint records it. The step's
 * assistant message (with every call, `ask` or not) is `Checkpoint.calling`;
 * no call of the step runs until the request is decided.
 */
export interface ApprovalWait {
  /** Short and unguessable, `[a-z0-9]{12}`: it travels in button payloads (Telegram's 64 bytes). */
  readonly id: string;
  /** The step whose calls wait. */
  readonly step: number;
  /** The calls that need a decision, in call order. */
  readonly calls: readonly PendingCall[];
  /** Whose message started the turn: by default they may decide. */
  readonly requester: DecidedBy;
  /** When the request was made (ms since the epoch): the timeout the texts name is `expiresAt - requestedAt`. */
  readonly requestedAt?: number;
  /** When the wait runs out (ms since the epoch). */
  readonly expiresAt: number;
  /** The request message's platform ref, once posted. */
  readonly requestRef?: string;
}

/** Who may decide a request besides the bot's owners, who always may. */
export const APPROVER_RULES = ["requester", "admins", "anyone"] as const;
export type ApproverRule = (typeof APPROVER_RULES)[number];

/** How approvals behave, from the config's `approvals:` section (per workspace and channel too). */
export interface ApprovalPolicy {
  /** Who may decide, besides owners. Default: the requester and admins. */
  readonly approvers: readonly ApproverRule[];
  /** How long a request waits before its calls answer "not approved in time". */
  readonly timeoutMs: number;
}

/**
 * Fifteen minutes. The wait holds no worker and no memory (it is a
 * checkpoint), so it can be far longer than an in-process wait such as
 * Hermes' 300 s; a person pulled away by a notification still gets back in
 * time. Much longer and the conversation has moved on by the time the tool
 * runs, which the model's next answer would not know.
 */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 15 * 60_000;

export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = Object.freeze({
  approvers: Object.freeze(["requester", "admins"]) as readonly ApproverRule[],
  timeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS,
});
