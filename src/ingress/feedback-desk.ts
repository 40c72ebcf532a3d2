import type { InboundMessage } from "../core/conversation.ts";
import { traceVote } from "../observability/tracing-feedback.ts";
import {
  type Feedback,
  type FeedbackAnswer,
  type FeedbackClick,
  parseFeedbackPayload,
  type Vote,
  voterOf,
} from "../ports/feedback.ts";
import { FEEDBACK_WHY_MS, type FeedbackStore } from "../store/feedback-store.ts";
import { parseCommandLine } from "./commands/registry.ts";

const THUMB: Readonly<Record<Vote, string>> = { up: "👍", down: "👎" };

/** What voters are told. Short: Telegram shows 200 characters of a button's answer. */
export const FEEDBACK_REPLIES = {
  up: "Thanks for the 👍.",
  down: "Thanks for the 👎.",
  ask: `Thanks for the 👎. What was wrong? Your next message here within ${FEEDBACK_WHY_MS / 60_000} minutes is kept with your vote, not sent to me (a /command skips this).`,
  changed: (vote: Vote) => `Changed your vote to ${THUMB[vote]}.`,
  same: (vote: Vote) =>
    `You rated this answer ${THUMB[vote]} already; press ${THUMB[vote === "up" ? "down" : "up"]} to change your vote.`,
  expired:
    "That answer is too old to rate: its record has expired (answers keep theirs for 30 days), so nothing was recorded.",
  nothing: "There is no answer here to rate yet, so nothing was recorded.",
  unreadable:
    "That button is not a rating I can read (it may belong to an older version of me), so nothing was recorded.",
  reasonKept: "Thanks, I kept that with your 👎 for the people who run me; it was not sent to me.",
  failed: (why: string) =>
    `Your vote could not be recorded just now (${why}), so nothing changed. Try again in a moment.`,
} as const;

export interface FeedbackDeskOptions {
  readonly store: FeedbackStore;
  /** Whether a first 👎 asks "what was wrong?"; default true. */
  readonly askWhy?: boolean;
  /** Called once per vote that changed (see `switchyard_feedback_total`). */
  readonly onVote?: (vote: Vote, previous: Vote | undefined) => void;
  readonly now?: () => number;
}

/**
 * The feedback desk every ingress process has: it records a person's vote
 * on an answer (one per person per answer, which a later vote replaces),
 * counts and traces the votes that changed something, and keeps a voter's
 * answer to "what was wrong?".
 *
 * A 👎 may open a short wait: the bot asks once per person per answer, in
 * the reply to the click, and the voter's next message in that conversation
 * within {@link FEEDBACK_WHY_MS} is kept with the vote instead of going to
 * the model. Nothing else is ever taken: only that person, that conversation,
 * one message, plain text (a command or a message with files ends the wait
 * and goes its usual way), and a 👍 ends the wait too.
 *
 * @example
 * const desk = new FeedbackDesk({ store: store.feedback, onVote: (v) => metrics.countFeedback(v) });
 * await desk.vote({ id: "k3x9q2m7p1ab", vote: "down", actor, platform: "slack" });
 */
export class FeedbackDesk implements Feedback {
  readonly #store: FeedbackStore;
  readonly #askWhy: boolean;
  readonly #onVote: FeedbackDeskOptions["onVote"];
  readonly #now: () => number;

  constructor(options: FeedbackDeskOptions) {
    this.#store = options.store;
    this.#askWhy = options.askWhy ?? true;
    this.#onVote = options.onVote;
    this.#now = options.now ?? Date.now;
  }

  async vote(click: FeedbackClick): Promise<FeedbackAnswer> {
    try {
      return await this.#vote(click);
    } catch (error) {
      return { kind: "failed", text: FEEDBACK_REPLIES.failed(describe(error)) };
    }
  }

  async #vote(click: FeedbackClick): Promise<FeedbackAnswer> {
    const id = click.id ?? (click.where ? await this.#store.last(click.where) : undefined);
    if (id === undefined) return { kind: "expired", text: FEEDBACK_REPLIES.nothing };
    const ref = await this.#store.find(id);
    if (ref === undefined) return { kind: "expired", text: FEEDBACK_REPLIES.expired };
    const outcome = await this.#store.vote(
      ref,
      voterOf(click.platform, click.actor.id),
      click.vote,
      {
        at: this.#now(),
        ...(click.name !== undefined ? { name: click.name } : {}),
        askWhy: this.#askWhy,
      },
    );
    if (outcome.kind !== "recorded") {
      return outcome.kind === "same"
        ? { kind: "same", text: FEEDBACK_REPLIES.same(click.vote) }
        : { kind: "expired", text: FEEDBACK_REPLIES.expired };
    }
    this.#onVote?.(click.vote, outcome.previous);
    const trace = await this.#store.trace(ref).catch(() => undefined);
    await traceVote(trace, {
      platform: click.platform,
      vote: click.vote,
      previous: outcome.previous,
    }).catch(() => {});
    if (outcome.ask) return { kind: "recorded", text: FEEDBACK_REPLIES.ask, ask: true };
    const text =
      outcome.previous === undefined
        ? FEEDBACK_REPLIES[click.vote]
        : FEEDBACK_REPLIES.changed(click.vote);
    return { kind: "recorded", text };
  }

  /**
   * Keeps `message` as its sender's answer to "what was wrong?" when they
   * have a wait open in this conversation; true when it was kept (the
   * message is answered, not queued). A command or a message with files
   * ends the wait and is not kept. A failure here keeps nothing: the message
   * goes its usual way.
   */
  async keepReason(message: InboundMessage): Promise<boolean> {
    if (!message.user) return false;
    const plain =
      parseCommandLine(message.text) === undefined &&
      (message.attachments?.length ?? 0) === 0 &&
      message.text.trim() !== "";
    try {
      return await this.#store.takeWhy(
        message,
        voterOf(message.platform, message.user),
        plain ? message.text.trim() : undefined,
        this.#now(),
      );
    } catch {
      return false;
    }
  }
}

/**
 * Answers a click on a feedback button, read with the one grammar
 * (`fb:<id>:<u|d>`, src/ports/feedback.ts). Never throws (rule 11).
 */
export async function answerFeedbackClick(
  feedback: Feedback | undefined,
  click: Omit<FeedbackClick, "id" | "vote"> & { readonly payload: string },
): Promise<FeedbackAnswer> {
  const parsed = parseFeedbackPayload(click.payload);
  if (parsed === undefined || feedback === undefined) {
    return { kind: "expired", text: FEEDBACK_REPLIES.unreadable };
  }
  const { payload: _payload, ...rest } = click;
  return feedback.vote({ ...rest, id: parsed.id, vote: parsed.vote });
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length <= 80 ? text : `${text.slice(0, 79)}…`;
}
