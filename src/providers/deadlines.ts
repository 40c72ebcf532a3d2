/**
 * The clocks of one model call. A call has one budget that every attempt and
 * every backoff between attempts spends from, so retries can never multiply
 * the wait; each attempt also has a watchdog that gives up on a reply that
 * does not start ({@link AttemptTimers} `first_byte`) or goes quiet (`idle`).
 */

/** Which clock ran out. */
export type Expiry = "first_byte" | "idle" | "call";

/** The whole call's budget, spent by every attempt and every wait between them. */
export class CallBudget {
  readonly #endsAt: number;

  constructor(
    readonly totalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#endsAt = now() + totalMs;
  }

  remainingMs(): number {
    return Math.max(0, this.#endsAt - this.now());
  }

  /** Starts an attempt's watchdog; whatever is left of the budget bounds it too. */
  attempt(limits: { readonly firstByteMs: number; readonly idleMs: number }): AttemptTimers {
    return new AttemptTimers(limits.firstByteMs, limits.idleMs, this.remainingMs());
  }
}

/**
 * One attempt's watchdog. `signal` aborts when a clock runs out, and
 * `expired` says which. The first-byte clock runs until the first byte of the
 * body arrives (headers alone do not count: a server that sends them and then
 * nothing has not started either); from then on every byte, keep-alive
 * comments included, restarts the idle clock. The budget clock runs
 * throughout, so a server that trickles keep-alives forever still ends.
 */
export class AttemptTimers {
  readonly #controller = new AbortController();
  readonly #firstByte: NodeJS.Timeout;
  readonly #budget: NodeJS.Timeout;
  #idle: NodeJS.Timeout | undefined;
  #expired: Expiry | undefined;

  constructor(
    firstByteMs: number,
    private readonly idleMs: number,
    budgetMs: number,
  ) {
    this.#firstByte = setTimeout(() => this.#expire("first_byte"), firstByteMs);
    this.#budget = setTimeout(() => this.#expire("call"), budgetMs);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get expired(): Expiry | undefined {
    return this.#expired;
  }

  /** Bytes of the reply arrived. */
  heard(): void {
    if (this.#expired) return;
    if (this.#idle) {
      this.#idle.refresh();
      return;
    }
    clearTimeout(this.#firstByte);
    this.#idle = setTimeout(() => this.#expire("idle"), this.idleMs);
  }

  close(): void {
    clearTimeout(this.#firstByte);
    clearTimeout(this.#budget);
    clearTimeout(this.#idle);
  }

  #expire(which: Expiry): void {
    if (this.#expired) return;
    this.#expired = which;
    this.close();
    this.#controller.abort(new Error(`model ${which} timeout`));
  }
}
