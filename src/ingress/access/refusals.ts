import { describeRate, type LimitName, type Rate } from "../../core/config/index.ts";

/**
 * Why a message was not queued, as counted in `switchyard_refused_total{reason}`.
 * A check added to the gate (a token budget) brings its own reason.
 */
export type RefusalReason =
  | "dm_closed"
  | "dm_allowlist"
  | "dm_pairing"
  | "group_closed"
  | "group_allowlist"
  | `limit_${LimitName}`
  | (string & {});

/** What a check says about a message it refuses. */
export interface Refusal {
  readonly reason: RefusalReason;
  /** What the sender is told: why, and what to do. */
  readonly text: string;
  /** How long before the same sender hears this reason again (default {@link NOTICE_INTERVAL_MS}). */
  readonly quietMs?: number;
  /** A group not let in: the channel leaves it where it can and the config says so. */
  readonly leave?: boolean;
  /** Say nothing at all (`on_refused_group: silent`). */
  readonly silent?: boolean;
}

/** A refused sender hears why at most once per this interval, per reason. */
export const NOTICE_INTERVAL_MS = 10 * 60_000;

export function dmClosed(): string {
  return "This bot does not take direct messages. If you need it, ask one of its owners.";
}

export function dmNotAllowed(user: string): string {
  return `This bot answers only people on its allow list, and ${user} is not on it. Ask one of its owners to add you (access.allow in the config).`;
}

export function groupClosed(leaving: boolean): string {
  return `This bot does not answer in groups${leaving ? ", so it is leaving this one" : ""}. Write to it directly, or ask one of its owners.`;
}

export function groupNotAllowed(place: string, leaving: boolean): string {
  return `This group is not on this bot's allow list (${place})${leaving ? ", so the bot is leaving it" : ""}. Ask one of its owners to add it to access.allow.`;
}

export function pairingCode(user: string, code: string, ttlMs: number): string {
  return `I don't know you yet. Your pairing code is ${code}: give it to an owner of this bot, who lets you in with /access approve ${code}. It works once and expires in ${duration(ttlMs)}. (You are ${user}.)`;
}

export function pairingTooOften(resetMs: number, now: number): string {
  return `You have asked for pairing codes too often. Ask an owner to approve the code you already have, or try again ${resetPhrase(resetMs, now)}.`;
}

const SCOPE_WORDS: Readonly<Record<LimitName, string>> = {
  user: "one person",
  conversation: "this conversation",
  workspace: "this workspace",
};

export function limitReached(name: LimitName, rate: Rate, resetMs: number, now: number): string {
  return `That is over the limit of ${describeRate(rate)} for ${SCOPE_WORDS[name]} (limits.${name}: ${rate.text}), so I did not read it. You can write again ${resetPhrase(resetMs, now)}.`;
}

/** "in 7 minutes (at 14:32 UTC)". */
export function resetPhrase(resetMs: number, now: number): string {
  const at = new Date(now + resetMs);
  const clock = `${String(at.getUTCHours()).padStart(2, "0")}:${String(at.getUTCMinutes()).padStart(2, "0")} UTC`;
  return `in ${duration(resetMs)} (at ${clock})`;
}

/** Rounded up, so "in 1 minute" never means "now". */
export function duration(ms: number): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  // Each unit until rounding up would reach the next: 59.5 s is "1 minute", not "60 seconds".
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 60) return plural(seconds, "second");
  const minutes = Math.ceil(ms / 60_000);
  if (minutes < 60) return plural(minutes, "minute");
  const hours = Math.ceil(ms / 3_600_000);
  if (hours < 24) return plural(hours, "hour");
  return plural(Math.ceil(ms / 86_400_000), "day");
}
