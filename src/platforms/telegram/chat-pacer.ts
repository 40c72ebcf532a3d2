/**
 * Spaces out edits per chat: Telegram accepts about one edit a second in a
 * chat and answers faster ones with 429s. Streaming already edits one
 * message at most once per interval; this holds the line when several
 * answers stream into one chat at once (two forum topics, say). Each call
 * reserves the next free slot before it waits, so concurrent callers queue
 * up instead of firing together.
 */
export class ChatPacer {
  readonly #next = new Map<string, number>();
  /** The map's size that sends it through {@link #forget}: twice what the last sweep left. */
  #sweepAt = 1_000;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async wait(chat: string): Promise<void> {
    const now = this.now();
    const slot = Math.max(now, this.#next.get(chat) ?? now);
    this.#next.set(chat, slot + this.intervalMs);
    if (this.#next.size > this.#sweepAt) this.#forget(now);
    if (slot > now) await this.sleep(slot - now);
  }

  /** Takes the chat's slot if it is free now; false (nothing taken) if the chat must wait. */
  take(chat: string): boolean {
    const now = this.now();
    if ((this.#next.get(chat) ?? now) > now) return false;
    this.#next.set(chat, now + this.intervalMs);
    return true;
  }

  /**
   * Takes the chat's slot now, without waiting for it: for the edit that
   * shows a finished answer, which must not sit behind the streaming pace.
   * The streaming edits after it keep their distance from it; should
   * Telegram still answer 429, its `retry_after` is waited out by the
   * token's flood gate (flood-gate.ts), which holds the chat's other calls meanwhile.
   */
  claim(chat: string): void {
    const now = this.now();
    // Slots callers already reserved stay theirs; the next free one is an interval after this edit at least.
    this.#next.set(chat, Math.max(this.#next.get(chat) ?? now, now + this.intervalMs));
  }

  /**
   * Drops chats whose slot has passed, so the map stays small; swept again
   * only once it has doubled, so a thousand chats streaming at once (all
   * their slots ahead) cost a sweep now and then, not one a call.
   */
  #forget(now: number): void {
    for (const [chat, next] of this.#next) if (next <= now) this.#next.delete(chat);
    this.#sweepAt = Math.max(1_000, 2 * this.#next.size);
  }
}
