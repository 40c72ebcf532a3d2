import { answerFor, TAG } from "./chaos-model.ts";

/**
 * The chaos suite's ledger: what a person would see, computed from what the
 * platform fakes recorded (never from the bot's own logs). Per conversation
 * it takes the messages sent, in the order they were sent, and the bot's
 * messages as the platform shows them in the end, in the platform's order;
 * each bot message names the messages it answers (see chaos-model.ts).
 */

/** The bot's give-up reply; any "sorry" the bot posts counts. */
export const APOLOGY = /sorry|send your message again/i;

export interface ConversationRecord {
  readonly id: string;
  /** The tags sent, in sending order. */
  readonly sent: readonly string[];
  /** The bot's messages in this conversation, final text, in the platform's order. */
  readonly shown: readonly string[];
}

export interface LedgerCounts {
  readonly sent: number;
  /** Named by exactly one bot message, and that one shows the whole answer. */
  readonly answeredOnce: number;
  /** No bot message shows the whole answer. */
  readonly lost: number;
  /** Named by two or more bot messages (whole or stuck partway). */
  readonly doubled: number;
  /**
   * Bot messages that name a message an earlier bot message already named:
   * one per answer posted again, however many messages that answer covers
   * (a turn answers every message it collected).
   */
  readonly doubledAnswers: number;
  /** Answered before a message sent earlier in the same conversation. */
  readonly outOfOrder: number;
  /** Apologies in conversations whose messages all got their answer. */
  readonly apologies: number;
  /** Bot messages that are neither a whole answer nor an apology: stuck partway through streaming. */
  readonly partials: number;
  /** Which messages were lost, doubled or out of order, for the failure message. */
  readonly details: readonly string[];
}

export function countLedger(conversations: readonly ConversationRecord[]): LedgerCounts {
  let sent = 0;
  let answeredOnce = 0;
  let lost = 0;
  let doubled = 0;
  let doubledAnswers = 0;
  let outOfOrder = 0;
  let apologies = 0;
  let partials = 0;
  const details: string[] = [];
  for (const conversation of conversations) {
    const shown = conversation.shown.map((text) => {
      const tags: string[] = text.match(TAG) ?? [];
      const apology = APOLOGY.test(text);
      return { text, tags, apology, whole: tags.length > 0 && text.trim() === answerFor(tags) };
    });
    const namedBefore = new Set<string>();
    for (const m of shown) {
      if (m.tags.some((tag) => namedBefore.has(tag))) doubledAnswers++;
      for (const tag of m.tags) namedBefore.add(tag);
    }
    let lostHere = 0;
    let latest = -1;
    for (const tag of conversation.sent) {
      sent++;
      const named = shown.filter((m) => m.tags.includes(tag));
      const whole = named.filter((m) => m.whole);
      if (whole.length === 0) {
        lost++;
        lostHere++;
        details.push(`${conversation.id}: ${tag} lost`);
      }
      if (named.length >= 2) {
        doubled++;
        details.push(`${conversation.id}: ${tag} shown ${named.length} times`);
      }
      if (named.length === 1 && whole.length === 1) answeredOnce++;
      const first = whole[0];
      if (first === undefined) continue;
      const at = shown.indexOf(first);
      if (at < latest) {
        outOfOrder++;
        details.push(`${conversation.id}: ${tag} answered before an earlier message`);
      }
      latest = Math.max(latest, at);
    }
    const sorry = shown.filter((m) => m.apology).length;
    const misplaced = Math.max(0, sorry - lostHere);
    apologies += misplaced;
    if (misplaced > 0) details.push(`${conversation.id}: ${misplaced} apology next to its answer`);
    for (const m of shown) {
      if (m.whole || m.apology) continue;
      partials++;
      details.push(`${conversation.id}: stuck partial ${JSON.stringify(m.text.slice(0, 60))}`);
    }
  }
  return {
    sent,
    answeredOnce,
    lost,
    doubled,
    doubledAnswers,
    outOfOrder,
    apologies,
    partials,
    details,
  };
}

/** The one line a scenario prints. */
export function summaryLine(
  name: string,
  counts: LedgerCounts,
  notes: Record<string, string | number>,
): string {
  const extra = Object.entries(notes)
    .map(([key, value]) => `${key} ${value}`)
    .join(", ");
  return (
    `chaos ${name}: sent ${counts.sent}, answered once ${counts.answeredOnce}, lost ${counts.lost}, ` +
    `doubled ${counts.doubled}, out of order ${counts.outOfOrder}, apologies ${counts.apologies}, ` +
    `stuck partials ${counts.partials} (${extra})`
  );
}

/**
 * What must hold after every run, as one object so a failure shows every
 * count at once: nothing lost, order kept, no apology next to an answer,
 * and no message shown twice or left stuck partway beyond `allowance` (0
 * but for Telegram, whose unavoidable double is a stuck copy of the start
 * of the answer: see TELEGRAM_DOUBLES_PER_WINDOW_KILL).
 */
/**
 * What a scenario must show: nothing lost, out of order or apologised for
 * next to an answer, and no answer posted again nor stuck partway beyond
 * `allowance` (answers, not messages: one answer covers every message its
 * turn collected). With no allowance, any double fails.
 */
export function verdict(counts: LedgerCounts, allowance = 0) {
  return {
    lost: counts.lost,
    doubledBeyondAllowance: Math.max(0, counts.doubledAnswers - allowance),
    outOfOrder: counts.outOfOrder,
    apologiesNextToAnswer: counts.apologies,
    stuckPartialsBeyondAllowance: Math.max(0, counts.partials - allowance),
  };
}

export const CLEAN_VERDICT = {
  lost: 0,
  doubledBeyondAllowance: 0,
  outOfOrder: 0,
  apologiesNextToAnswer: 0,
  stuckPartialsBeyondAllowance: 0,
};
