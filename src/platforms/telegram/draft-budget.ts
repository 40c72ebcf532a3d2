/**
 * How many drafts a second one worker sends, all answers together, besides
 * each answer's first: a draft is a markdown render and a Telegram round
 * trip, so the work for drafts stays level however many answers stream at
 * once, and each grows less often instead. Up to 100 answers at once grow
 * every second (a chat's own pace); 200 about every two seconds. A first
 * draft is not counted: like the final message, every answer has one.
 */
export const DRAFTS_PER_SECOND = 100;

/**
 * The pacing of later drafts, as data and time handed in (no clock, no
 * timers): a token bucket of `perSecond` drafts a second, and one line of
 * the drafts waiting for it, served in the order they asked. An answer asks
 * for its next draft only once its last one went, so the line is a round
 * robin: with N answers streaming each grows about every N / `perSecond`
 * seconds, and a draft waits at most for those ahead of it.
 */
export class DraftPace<T> {
  #tokens: number;
  #at: number;
  readonly #waiting: T[] = [];
  /** The most tokens saved up: a tenth of a second's drafts, so a quiet worker answers at once. */
  readonly #burst: number;

  constructor(
    readonly perSecond: number,
    now: number,
  ) {
    this.#burst = Math.max(1, perSecond / 10);
    this.#tokens = this.#burst;
    this.#at = now;
  }

  /** Drafts waiting now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** A later draft joins the end of the line. */
  ask(who: T): void {
    this.#waiting.push(who);
  }

  /** A draft no longer wanted (its answer ended) leaves the line. */
  leave(who: T): void {
    const i = this.#waiting.indexOf(who);
    if (i >= 0) this.#waiting.splice(i, 1);
  }

  /**
   * The drafts whose turn has come by `now`, first in line first, and when
   * the next one's turn comes (none: no draft is waiting).
   */
  grant(now: number): { readonly granted: T[]; readonly next?: number } {
    this.#refill(now);
    const granted: T[] = [];
    // A hair under one is one: refilled by fractions, the sum can fall short of a whole by rounding.
    while (this.#waiting.length > 0 && this.#tokens >= 1 - 1e-9) {
      granted.push(this.#waiting.shift() as T);
      this.#tokens -= 1;
    }
    if (this.#waiting.length === 0) return { granted };
    // When the next token is whole, to the fraction of a millisecond: rounded, waits would add up.
    return { granted, next: now + ((1 - this.#tokens) * 1_000) / this.perSecond };
  }

  #refill(now: number): void {
    if (now <= this.#at) return;
    this.#tokens = Math.min(
      this.#burst,
      this.#tokens + ((now - this.#at) * this.perSecond) / 1_000,
    );
    this.#at = now;
  }
}

/**
 * The worker's budget of drafts ({@link DraftPace} on the clock): a later
 * draft of an answer waits for its turn, which comes sooner the fewer
 * answers stream (the first goes at once, without asking). The caller
 * reads the answer's newest text once its turn comes, so text overtaken
 * while it waited is never rendered.
 */
export class DraftBudget {
  readonly #pace: DraftPace<() => void>;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(
    perSecond: number = DRAFTS_PER_SECOND,
    private readonly now: () => number = Date.now,
  ) {
    this.#pace = new DraftPace(perSecond, now());
  }

  /** Resolves true when a later draft's turn comes, false if `signal` aborts first. */
  next(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const granted = () => {
        signal?.removeEventListener("abort", cancelled);
        resolve(true);
      };
      const cancelled = () => {
        this.#pace.leave(granted);
        resolve(false);
      };
      signal?.addEventListener("abort", cancelled, { once: true });
      this.#pace.ask(granted);
      this.#pump();
    });
  }

  #pump(): void {
    const { granted, next } = this.#pace.grant(this.now());
    for (const go of granted) go();
    if (next === undefined || next >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = next;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.max(0, next - this.now()),
    );
    this.#timer.unref?.();
  }
}
