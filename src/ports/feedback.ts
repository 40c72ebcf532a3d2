import { createHash } from "node:crypto";
import type { Actor } from "../core/commands/permissions.ts";
import type { ConversationAddress, InboundMessage } from "../core/conversation.ts";
import type { MessageControl } from "./outbound.ts";

/** A person's rating of an answer: thumbs up or thumbs down. */
export type Vote = "up" | "down";

export const VOTES: readonly Vote[] = ["up", "down"];

/**
 * A click on an answer's 👍 / 👎 (a Slack feedback button, a Discord button,
 * a Telegram inline key) or a typed `/good` / `/bad`, as data. The channel
 * reads the platform's payload into this; the feedback desk decides.
 */
export interface FeedbackClick {
  /** The answer's feedback id ({@link feedbackId}); undefined for a typed `/good`: the conversation's last rated answer. */
  readonly id?: string;
  readonly vote: Vote;
  /** Who clicked; votes are kept per `actor.id` (`slack:U123`). */
  readonly actor: Actor;
  readonly name?: string;
  readonly platform: string;
  /** Where a typed `/good` was typed (its answer is that conversation's last rated one). */
  readonly where?: ConversationAddress;
}

/**
 * What the voter is told (privately where the platform allows): `recorded`
 * when their vote changed (a first vote, or a change of mind), `same` when
 * it was already that (a second click of the same button, a redelivered
 * click), `expired` when the answer's record is gone, `failed` when Redis
 * was away (nothing changed). `ask` is set on a new 👎 when the bot asks
 * "what was wrong?" (see the feedback desk).
 */
export type FeedbackAnswer =
  | { readonly kind: "recorded"; readonly text: string; readonly ask?: boolean }
  | { readonly kind: "same" | "expired" | "failed"; readonly text: string };

/** The feedback desk every ingress process has (src/ingress/feedback-desk.ts implements it). */
export interface Feedback {
  vote(click: FeedbackClick): Promise<FeedbackAnswer>;
  /**
   * Keeps the message as its sender's answer to "what was wrong?" when a
   * 👎 of theirs opened a wait in this conversation; true: kept, answered,
   * not for the model.
   */
  keepReason(message: InboundMessage): Promise<boolean>;
}

/**
 * Whose vote it is: the platform-qualified id (`slack:U123`), from an
 * actor's id (already qualified on the platforms) or a message's raw user.
 */
export function voterOf(platform: string, id: string): string {
  return id.startsWith(`${platform}:`) ? id : `${platform}:${id}`;
}

/**
 * The payload of a feedback button, the same on every platform:
 * `fb:<id>:<u|d>`, 17 bytes, well inside Telegram's 64-byte callback data,
 * Discord's 100-character custom id and Slack's action value. The id is
 * the answer's {@link feedbackId}; the answer's record in Redis maps it to
 * the conversation and the turn.
 */
const FEEDBACK_PAYLOAD = /^fb:([a-z0-9]{12}):([ud])$/;

/** The prefix of every feedback payload: a click that starts so is a feedback click, readable or not. */
export const FEEDBACK_PREFIX = "fb:";

export function feedbackPayload(id: string, vote: Vote): string {
  return `${FEEDBACK_PREFIX}${id}:${vote === "up" ? "u" : "d"}`;
}

/** Reads a payload of {@link feedbackPayload}; undefined for anything else (never a guess). */
export function parseFeedbackPayload(
  payload: string,
): { readonly id: string; readonly vote: Vote } | undefined {
  const match = FEEDBACK_PAYLOAD.exec(payload);
  if (!match) return undefined;
  return { id: match[1] as string, vote: match[2] === "u" ? "up" : "down" };
}

/** Whether a control's payload claims to be a feedback button's (answered as feedback even when malformed). */
export function isFeedbackPayload(payload: string): boolean {
  return payload.startsWith(FEEDBACK_PREFIX);
}

/**
 * The short id of one answer: 12 characters of `[a-z0-9]` from the SHA-256
 * of the conversation and the turn id. Derived, not drawn, so a turn
 * resumed after a crash puts the same buttons under the same answer.
 */
export function feedbackId(conversation: string, turnId: string): string {
  const digest = createHash("sha256").update(`${conversation}\n${turnId}`).digest();
  // 8 bytes as a base-36 number: 36^12 > 2^62, so 12 digits hold any 62 bits.
  const value = digest.readBigUInt64BE(0) >> 2n;
  return value.toString(36).padStart(12, "0").slice(-12);
}

/** The two buttons under a rated answer, 👍 then 👎. */
export function feedbackControls(id: string): readonly MessageControl[] {
  return [
    { payload: feedbackPayload(id, "up"), label: "👍" },
    { payload: feedbackPayload(id, "down"), label: "👎" },
  ];
}

/** Whether a post's controls are an answer's feedback pair (Slack renders them as its feedback block). */
export function isFeedbackPair(controls: readonly MessageControl[]): boolean {
  return controls.length === 2 && controls.every((c) => isFeedbackPayload(c.payload));
}
