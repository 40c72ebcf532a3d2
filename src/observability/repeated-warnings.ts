import type { LoggerPort } from "../core/logger.ts";

export interface RepeatedWarningsOptions {
  /** The quiet time after the first line of a subject; it doubles with each line up to `maxQuietMs`. */
  readonly firstQuietMs?: number;
  readonly maxQuietMs?: number;
  readonly now?: () => number;
}

interface Subject {
  readonly message: string;
  fields: Readonly<Record<string, unknown>>;
  timer: NodeJS.Timeout | undefined;
  quietMs: number;
  nextAt: number;
  lastSeen: number;
  suppressed: number;
  firstSuppressedAt: number;
}

/**
 * Logs a warning that keeps coming (a Redis refusing writes, a connection
 * that keeps failing) with backoff and a count, instead of once per
 * occurrence: BullMQ's worker loop emits "error" thousands of times a second
 * while Redis answers OOM, and one line per emit fills a disk. The first
 * occurrence of a subject is logged at once; later ones are counted and
 * logged as one line (`repeated: N, overMs`) once the quiet time is up, which
 * doubles up to a minute; a count still held when the warnings stop is
 * logged when the quiet time ends. A subject that was calm for twice that
 * long starts over.
 *
 * @example
 * const warnings = new RepeatedWarnings(logger);
 * worker.on("error", (e) => warnings.warn("worker error", { error: e.message }));
 */
export class RepeatedWarnings {
  readonly #subjects = new Map<string, Subject>();
  readonly #first: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(
    private readonly logger: LoggerPort,
    options: RepeatedWarningsOptions = {},
  ) {
    this.#first = options.firstQuietMs ?? 1_000;
    this.#max = options.maxQuietMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Warns, or counts the warning for a later line. `subject` tells repeats
   * apart (by default the message with the `error` field, digits folded, so
   * "OOM ... 1234 bytes" and "... 1240 bytes" are one subject).
   */
  warn(message: string, fields: Readonly<Record<string, unknown>> = {}, subject?: string): void {
    const key = subject ?? `${message}\0${String(fields.error ?? "").replace(/\d+/g, "#")}`;
    const now = this.#now();
    let s = this.#subjects.get(key);
    if (s && now - s.lastSeen > 2 * this.#max) s = undefined;
    if (!s) {
      this.#subjects.set(key, {
        message,
        fields,
        timer: undefined,
        quietMs: this.#first,
        nextAt: now + this.#first,
        lastSeen: now,
        suppressed: 0,
        firstSuppressedAt: now,
      });
      if (this.#subjects.size > 1_000) this.#forgetCalm(now);
      this.logger.warn(message, fields);
      return;
    }
    s.lastSeen = now;
    s.fields = fields;
    if (now < s.nextAt) {
      if (s.suppressed === 0) {
        s.firstSuppressedAt = now;
        const subject = s;
        s.timer = setTimeout(() => this.#flush(subject, true), s.nextAt - now);
        s.timer.unref();
      }
      s.suppressed++;
      return;
    }
    this.#flush(s, false);
  }

  /** Logs a subject's line: the held count, if any; `quiet` when the quiet time ran out with nothing new. */
  #flush(s: Subject, quiet: boolean): void {
    clearTimeout(s.timer);
    s.timer = undefined;
    const now = this.#now();
    const repeated = s.suppressed;
    if (quiet && repeated === 0) return;
    const overMs = now - s.firstSuppressedAt;
    s.suppressed = 0;
    s.quietMs = Math.min(s.quietMs * 2, this.#max);
    s.nextAt = now + s.quietMs;
    // A held count logged on its own stands for the repeats; a new one is logged with them.
    const fields =
      repeated > 0 ? { ...s.fields, repeated: quiet ? repeated : repeated + 1, overMs } : s.fields;
    this.logger.warn(s.message, fields);
  }

  /** Drops subjects that went calm, so a stream of distinct errors cannot grow the map for ever. */
  #forgetCalm(now: number): void {
    for (const [key, s] of this.#subjects) {
      if (now - s.lastSeen > this.#max && s.timer === undefined) this.#subjects.delete(key);
    }
  }
}
