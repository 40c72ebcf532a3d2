import type { Reading } from "../reading.ts";

/**
 * A message rate as the config writes it: `N/<window>`, at most N messages
 * in any window of that length (a sliding window, not a calendar one).
 *
 * ```text
 * rate   = count "/" [ length ] unit       20/10m, 600/h, 5/30s, 1000/1d
 * count  = 1 to 100000, no leading zero
 * length = 1 to 99999, no leading zero    (absent: 1)
 * unit   = "s" | "m" | "h" | "d"
 * window = at most 31 days
 * ```
 *
 * Nothing else is accepted: no spaces, no fractions, no "per", no plural
 * units, so a typo never becomes a different limit.
 *
 * @example
 * parseRate("20/10m"); // { ok: true, rate: { count: 20, windowMs: 600_000, text: "20/10m" } }
 */
export interface Rate {
  readonly count: number;
  readonly windowMs: number;
  /** As written, for messages. */
  readonly text: string;
}

export type RateReading = Reading<"rate", Rate>;

export const MAX_RATE_COUNT = 100_000;
export const MAX_RATE_WINDOW_MS = 31 * 86_400_000;

const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const UNIT_WORD: Readonly<Record<string, string>> = {
  s: "second",
  m: "minute",
  h: "hour",
  d: "day",
};
const RATE = /^([1-9][0-9]{0,5})\/([1-9][0-9]{0,4})?([smhd])$/;

export function parseRate(text: string): RateReading {
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  const match = RATE.exec(text);
  const fix = `Write messages/window, e.g. 20/10m, 600/h or 5/30s (units s, m, h, d).`;
  if (!match) return { ok: false, problem: `${shown} is not a rate. ${fix}` };
  const count = Number(match[1]);
  const length = match[2] === undefined ? 1 : Number(match[2]);
  const windowMs = length * (UNIT_MS[match[3] as string] as number);
  if (count > MAX_RATE_COUNT) {
    return {
      ok: false,
      problem: `${shown} allows more than ${MAX_RATE_COUNT} messages; use a shorter window instead.`,
    };
  }
  if (windowMs > MAX_RATE_WINDOW_MS) {
    return { ok: false, problem: `${shown} has a window over 31 days; use at most 31d.` };
  }
  return { ok: true, rate: { count, windowMs, text } };
}

/** `20/10m` -> "20 messages per 10 minutes". */
export function describeRate(rate: Rate): string {
  const match = RATE.exec(rate.text);
  const messages = `${rate.count} message${rate.count === 1 ? "" : "s"}`;
  if (!match) return `${messages} per ${rate.windowMs / 1000} seconds`;
  const length = match[2] === undefined ? 1 : Number(match[2]);
  const word = UNIT_WORD[match[3] as string] as string;
  return length === 1 ? `${messages} per ${word}` : `${messages} per ${length} ${word}s`;
}
