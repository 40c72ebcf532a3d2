import type { Update } from "grammy/types";

/**
 * One queue per chat: the updates of a chat are taken one at a time, in
 * the order they came, while other chats' go on beside them. A chat whose
 * update waits (Redis away, tried again with backoff) holds up only itself.
 *
 * @example
 * const lanes = new ChatLanes<Update>((update) => takeUntilTaken(update));
 * for (const update of updates) lanes.push(chatLane(update), update);
 * await lanes.idle();
 */
export class ChatLanes<T> {
  readonly #waiting = new Map<string, T[]>();
  readonly #running = new Map<string, Promise<void>>();

  /** `run` must not throw; a lane goes on with its next item when it returns. */
  constructor(private readonly run: (item: T, lane: string) => Promise<void>) {}

  /** Queues an item behind the lane's earlier ones, starting the lane when it is idle. */
  push(lane: string, item: T): void {
    const queue = this.#waiting.get(lane) ?? [];
    queue.push(item);
    this.#waiting.set(lane, queue);
    if (!this.#running.has(lane)) this.#running.set(lane, this.#drain(lane));
  }

  /** Lanes with something to do. */
  get busy(): number {
    return this.#running.size;
  }

  /** Resolves once every lane has run out of items. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  async #drain(lane: string): Promise<void> {
    // Yields first, so `push` has recorded the lane as running before it can end.
    await Promise.resolve();
    for (let item = this.#next(lane); item !== undefined; item = this.#next(lane)) {
      try {
        await this.run(item.value, lane);
      } catch {
        // `run` reports its own failures; the lane goes on either way.
      }
    }
    this.#running.delete(lane);
  }

  #next(lane: string): { value: T } | undefined {
    const queue = this.#waiting.get(lane);
    if (!queue || queue.length === 0) return undefined;
    const value = queue.shift() as T;
    if (queue.length === 0) this.#waiting.delete(lane);
    return { value };
  }
}

/**
 * Which lane an update belongs to: its chat (a message, an edit, a press on
 * a message, a member change), else the person (an inline query, a press on
 * an inline message), else one lane for whatever is left. Reads the update
 * defensively: it may be any JSON at all.
 */
export function chatLane(update: Update): string {
  if (!isObject(update)) return "other";
  for (const [kind, body] of Object.entries(update as object)) {
    if (kind === "update_id" || !isObject(body)) continue;
    const chat = idOf(body.chat) ?? (isObject(body.message) ? idOf(body.message.chat) : undefined);
    if (chat !== undefined) return `chat:${chat}`;
    const person = idOf(body.from) ?? idOf(body.user);
    if (person !== undefined) return `user:${person}`;
  }
  return "other";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function idOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const id = value.id;
  return typeof id === "number" || typeof id === "string" ? String(id) : undefined;
}
