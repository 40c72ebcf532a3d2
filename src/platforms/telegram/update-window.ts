/**
 * The updates one poller has in hand, and the offset that confirms them.
 *
 * Telegram forgets every update below the `offset` a `getUpdates` asks for,
 * so the offset may only pass updates that were taken: it stays at the
 * oldest update still being taken (held back by a Redis outage, say), and
 * moves past a contiguous run of taken ones once that one is taken too.
 * Updates after it may be taken meanwhile (another chat's); they come again
 * in every poll until the offset passes them, and the window tells that
 * they are in hand already, so each is given out once.
 *
 * @example
 * const window = new UpdateWindow(await offset.read());
 * for (const update of updates) if (window.admit(update.update_id)) start(update);
 * // ... later, when one is on the queue:
 * if (window.finish(update.update_id)) await offset.advance(window.offset);
 */
export class UpdateWindow {
  readonly #pending = new Set<number>();
  /** Taken updates the offset has not passed yet. */
  readonly #taken = new Set<number>();
  #floor: number | undefined;
  #highest: number | undefined;

  /** `offset`: the stored one, below which every update was taken before. */
  constructor(offset?: number) {
    this.#floor = offset;
  }

  /** The offset to ask `getUpdates` for (and to store); undefined before the first update. */
  get offset(): number | undefined {
    if (this.#pending.size > 0) return Math.min(...this.#pending);
    return this.#highest !== undefined ? this.#highest + 1 : this.#floor;
  }

  /** How many updates are being taken. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Takes in an update id from a poll: true when it is new, false when in
   * hand, taken before, or below the offset (confirmed already: the offset
   * never moves back).
   */
  admit(id: number): boolean {
    if (!isUpdateId(id)) return false;
    const offset = this.offset;
    if (offset !== undefined && id < offset) return false;
    if (this.#pending.has(id) || this.#taken.has(id)) return false;
    this.#pending.add(id);
    if (this.#highest === undefined || id > this.#highest) this.#highest = id;
    return true;
  }

  /** Records an admitted update as taken; true when the offset moved because of it. */
  finish(id: number): boolean {
    if (!this.#pending.delete(id)) return false;
    const before = this.#floor;
    this.#taken.add(id);
    const offset = this.offset as number;
    for (const taken of this.#taken) if (taken < offset) this.#taken.delete(taken);
    this.#floor = offset;
    return offset !== before;
  }
}

/** An update id Telegram could have sent: a non-negative integer JavaScript holds exactly. */
export function isUpdateId(id: unknown): id is number {
  return typeof id === "number" && Number.isSafeInteger(id) && id >= 0;
}
