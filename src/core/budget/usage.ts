import type { Usage } from "../agent/messages.ts";
import type { ModelPrice } from "../config/models-section.ts";

/** Counted usage over a period: what `/usage` shows and token budgets are checked against. */
export interface UsageCounts {
  readonly prompt: number;
  /** Prompt tokens served from the provider's cache (already counted in `prompt`). */
  readonly cached: number;
  readonly completion: number;
  readonly turns: number;
  /** The estimated cost in millionths of the price's currency; 0 when no price was configured. */
  readonly costMicros: number;
}

export const NO_USAGE: UsageCounts = Object.freeze({
  prompt: 0,
  cached: 0,
  completion: 0,
  turns: 0,
  costMicros: 0,
});

const DAY_MS = 86_400_000;

/** The UTC day a moment falls on, as usage keys name it: `d:2026-12-01`. */
export function dayPeriod(now: number): string {
  return `d:${new Date(now).toISOString().slice(0, 10)}`;
}

/** The UTC month a moment falls in, as usage keys name it: `m:2026-12`. */
export function monthPeriod(now: number): string {
  return `m:${new Date(now).toISOString().slice(0, 7)}`;
}

/** The next midnight UTC after `now`, when daily counters and budgets start again. */
export function nextUtcMidnight(now: number): number {
  return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
}

/** The tokens a budget counts: everything sent (cached included) and everything received. */
export function tokensSpent(counts: Pick<UsageCounts, "prompt" | "completion">): number {
  return counts.prompt + counts.completion;
}

/** Anthropic's price of a 5-minute cache write, relative to plain input, when the config names none. */
export const CACHE_WRITE_FACTOR = 1.25;

/**
 * What a turn's usage cost at a model's price per million tokens, in
 * millionths. Cache writes (Anthropic's) count at `price.cacheWrite`, else
 * at {@link CACHE_WRITE_FACTOR} times the input price.
 */
export function costMicros(usage: Usage, price: ModelPrice | undefined): number {
  if (!price) return 0;
  const written = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.promptTokens - usage.cachedTokens - written);
  // Tokens x price per million tokens x one million micros = tokens x price.
  return Math.round(
    uncached * price.input +
      usage.cachedTokens * price.cached +
      written * (price.cacheWrite ?? price.input * CACHE_WRITE_FACTOR) +
      usage.completionTokens * price.output,
  );
}

/** The share of prompt tokens the cache served, as a whole percentage; undefined with no prompt. */
export function cachedShare(counts: Pick<UsageCounts, "prompt" | "cached">): number | undefined {
  return counts.prompt > 0 ? Math.round((counts.cached / counts.prompt) * 100) : undefined;
}

/** Tokens for people: 1234567 -> "1,234,567". */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** Hours and minutes until a moment: "3 h 12 min", "45 min", "less than a minute". */
export function formatWait(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "less than a minute";
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h === 0 ? `${m} min` : m === 0 ? `${h} h` : `${h} h ${m} min`;
}
