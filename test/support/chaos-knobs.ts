/**
 * The chaos suite's knobs, read from the environment once, and the seeded
 * random numbers every scenario draws its timings from, so a failing run can
 * be repeated with the seed it printed.
 *
 * - `CHAOS_PLATFORM_DELAY_MS`: the platform round trip per API call (default
 *   50 ms, a typical Slack or Telegram call from a nearby region; CI's slow
 *   run uses 200).
 * - `CHAOS_MESSAGES`: messages each scenario sends (default 24).
 * - `CHAOS_SEED`: the seed (default: a fresh one, printed in every summary).
 * - `CHAOS_TELEGRAM_STREAMING`: `native` (default: private chats stream as drafts) or
 *   `edit` (post and edit, as before drafts), to compare the two under the same kills.
 */

export class ChaosKnobError extends Error {
  override readonly name = "ChaosKnobError";
}

function whole(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ChaosKnobError(`${name} must be a whole number of at least ${min}, not "${raw}".`);
  }
  return value;
}

export const CHAOS = {
  platformDelayMs: whole("CHAOS_PLATFORM_DELAY_MS", 50, 0),
  messages: whole("CHAOS_MESSAGES", 24, 4),
  seed: whole("CHAOS_SEED", Math.floor(Math.random() * 2 ** 31), 0),
  telegramStreaming: streamingOf("CHAOS_TELEGRAM_STREAMING"),
} as const;

function streamingOf(name: string): "native" | "edit" {
  const raw = process.env[name]?.trim() ?? "";
  if (raw === "" || raw === "native") return "native";
  if (raw === "edit") return "edit";
  throw new ChaosKnobError(`${name} must be native or edit, not "${raw}".`);
}

/** A small seeded generator (mulberry32): the same seed gives the same run of numbers. */
export class ChaosRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** A whole number in [min, max]. */
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new ChaosKnobError("pick needs at least one item");
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

/** The seed of one scenario: the run's seed and the scenario's name, so scenarios differ but repeat. */
export function scenarioRandom(name: string): ChaosRandom {
  let hash = CHAOS.seed;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  return new ChaosRandom(hash);
}
