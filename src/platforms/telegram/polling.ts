import { setTimeout as sleep } from "node:timers/promises";
import type { Api } from "grammy";
import type { Update } from "grammy/types";
import type { LoggerPort } from "../../core/logger.ts";
import { isTelegramError } from "./api.ts";
import { ChatLanes, chatLane } from "./chat-lanes.ts";
import type { UpdateOffset } from "./update-offset.ts";
import { isUpdateId, UpdateWindow } from "./update-window.ts";

export interface UpdatePollerOptions {
  readonly api: Api;
  readonly offset: UpdateOffset;
  /** Takes one update: enqueues it or answers it. Throws when it could not. */
  readonly take: (update: Update) => Promise<void>;
  /**
   * Whether a failure of `take` passes (Redis or the queue unavailable, the
   * network): the update is then held and tried again, for as long as it takes.
   */
  readonly isTransient: (error: unknown) => boolean;
  /**
   * An update `take` failed for any other reason (a bug, a payload nothing
   * can read): tell the person, log and count. Polling moves past it.
   */
  readonly skip: (update: Update, error: unknown) => Promise<void>;
  readonly allowedUpdates: readonly ("message" | "callback_query")[];
  /** How long one `getUpdates` waits for an update, in seconds (Telegram allows up to 50). */
  readonly timeoutSeconds?: number;
  /** The first pause after a failure; it doubles up to `maxRetryMs`. */
  readonly retryMs?: number;
  /** The longest pause between two tries of a held update (default 15 s). */
  readonly maxRetryMs?: number;
  /**
   * While an update is held, Telegram answers every poll at once (with the
   * updates not confirmed yet); polls for other chats' updates are this far
   * apart then (default 1 s), sooner when an update is taken.
   */
  readonly heldPollMs?: number;
  readonly logger: LoggerPort;
  /** An error for a log line, the token redacted. */
  readonly describe: (error: unknown) => string;
}

/**
 * Long polling that loses nothing and lets no chat wait for another.
 *
 * Each chat's updates are taken in order, one at a time, and chats are taken
 * side by side (see {@link ChatLanes}). An update that fails because Redis
 * or the queue is away is held and tried again with backoff until it is
 * taken; its chat waits, the others go on. One that fails for another reason
 * is skipped with `skip` (which tells the person), so it cannot wedge its
 * chat either.
 *
 * Telegram forgets an update once a `getUpdates` asks for an offset past it,
 * so the offset (asked for, and kept in Redis by {@link UpdateOffset}) moves
 * only past a contiguous run of taken updates (see {@link UpdateWindow}). A
 * restart resumes from the stored offset; what was taken after it comes
 * again and the update ledger knows it.
 *
 * grammY's `bot.start()` would confirm an update even when its handler
 * failed and keeps the offset in memory; this keeps grammY's `Api` and
 * middleware and replaces only that loop.
 */
export class UpdatePoller {
  #controller: AbortController | undefined;
  #loop: Promise<void> | undefined;
  #lanes: ChatLanes<Update> | undefined;
  /** Wakes a poll that waits while updates are held, when one is taken. */
  #wake: (() => void) | undefined;
  #offsetFailing = false;
  /** The offset write in flight, if any: the next waits for it (see {@link #storeOffset}). */
  #storing: Promise<void> | undefined;
  /** The highest offset to store once the write in flight is done. */
  #nextOffset: number | undefined;
  readonly #unreadable = new Set<string>();

  constructor(private readonly options: UpdatePollerOptions) {}

  /** Starts polling in the background; `stop` ends it. */
  start(): void {
    if (this.#loop) return;
    const controller = new AbortController();
    this.#controller = controller;
    this.#loop = this.#run(controller.signal).catch((error: unknown) => {
      if (!controller.signal.aborted) {
        this.options.logger.warn("Telegram polling stopped", {
          error: this.options.describe(error),
        });
      }
    });
  }

  /**
   * Cancels the waiting `getUpdates` and the pauses of held updates, and
   * waits for the updates being taken. What was not taken stays unconfirmed
   * and comes again on the next start.
   */
  async stop(): Promise<void> {
    this.#controller?.abort();
    this.#wake?.();
    await this.#loop;
    await this.#lanes?.idle();
    // The last offset written, so a restart resumes from it; not waited for past a second
    // (Redis may be away, and a restart that sees a few updates again dedupes them).
    await Promise.race([this.#offsetsStored(), sleep(1_000, undefined, { ref: false })]);
    this.#loop = undefined;
    this.#lanes = undefined;
    this.#controller = undefined;
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { api, logger, describe } = this.options;
    const start = await this.#readOffset(signal);
    if (signal.aborted) return;
    const window = new UpdateWindow(start);
    const lanes = new ChatLanes<Update>((update) => this.#takeHeld(update, window, signal));
    this.#lanes = lanes;
    let failures = 0;
    while (!signal.aborted) {
      let updates: Update[];
      const offset = window.offset;
      try {
        updates = await api.getUpdates(
          {
            ...(offset !== undefined ? { offset } : {}),
            // Telegram answers at once while updates are unconfirmed; a long wait is for an empty queue.
            timeout: window.pending > 0 ? 0 : (this.options.timeoutSeconds ?? 30),
            allowed_updates: [...this.options.allowedUpdates],
          },
          // grammY types its signal with the abort-controller shim's AbortSignal; Node's is the same at runtime.
          signal as Parameters<Api["getUpdates"]>[1],
        );
        failures = 0;
      } catch (error) {
        if (signal.aborted) return;
        if (isTelegramError(error, 401)) {
          logger.warn("Telegram refused the bot token; polling stops. Check TELEGRAM_BOT_TOKEN.", {
            error: describe(error),
          });
          return;
        }
        logger.warn("Telegram getUpdates failed; polling again shortly", {
          error: describe(error),
        });
        if (!(await this.#pause(failures++, signal))) return;
        continue;
      }
      let fresh = 0;
      for (const update of Array.isArray(updates) ? updates : []) {
        const id = (update as { update_id?: unknown } | null)?.update_id;
        if (typeof update !== "object" || update === null || !isUpdateId(id)) {
          this.#warnUnreadable(update);
          continue;
        }
        if (!window.admit(id)) continue;
        fresh++;
        lanes.push(chatLane(update), update);
      }
      if (fresh === 0 && (window.pending > 0 || updates.length > 0)) {
        await this.#heldPoll(signal);
      }
    }
  }

  /**
   * Takes one update, holding it through failures that pass; skips it
   * (telling the person) on any other. Only then does it count as taken.
   */
  async #takeHeld(update: Update, window: UpdateWindow, signal: AbortSignal): Promise<void> {
    const { logger, describe } = this.options;
    const id = update.update_id;
    let tries = 0;
    for (;;) {
      if (signal.aborted) return;
      tries++;
      try {
        await this.options.take(update);
        break;
      } catch (error) {
        if (!this.options.isTransient(error)) {
          await this.options.skip(update, error).catch(() => {});
          break;
        }
        // 1, 2, 4, 8... tries: a long outage logs a line now and then, not one per try.
        if ((tries & (tries - 1)) === 0) {
          logger.warn(
            `Telegram update ${id} could not be taken yet; it is held and tried again, and other chats go on meanwhile`,
            { error: describe(error), tries },
          );
        }
        if (!(await this.#pause(tries - 1, signal, this.options.maxRetryMs ?? 15_000))) return;
      }
    }
    if (tries > 1) logger.warn(`Telegram update ${id} was taken after ${tries} tries`, {});
    if (window.finish(id)) this.#storeOffset(window.offset);
    this.#wake?.();
  }

  /** The stored offset, read again and again while Redis does not answer. */
  async #readOffset(signal: AbortSignal): Promise<number | undefined> {
    for (let failures = 0; !signal.aborted; failures++) {
      try {
        return await this.options.offset.read();
      } catch (error) {
        if (failures === 0) {
          this.options.logger.warn(
            "the stored Telegram update offset could not be read; polling starts once Redis answers",
            { error: this.options.describe(error) },
          );
        }
        if (!(await this.#pause(failures, signal))) return undefined;
      }
    }
    return undefined;
  }

  /** Settles once no offset write is in flight or waiting. */
  async #offsetsStored(): Promise<void> {
    while (this.#storing) await this.#storing;
  }

  /**
   * Stores the offset, one write at a time: offsets that come while one is
   * being written are folded into the highest, written next. A burst of
   * updates then costs a few writes, not one each; the stored offset only
   * ever trails the taken updates (what it misses after a crash comes again
   * and is deduped).
   */
  #storeOffset(offset: number | undefined): void {
    if (offset === undefined) return;
    if (this.#storing) {
      this.#nextOffset = Math.max(this.#nextOffset ?? offset, offset);
      return;
    }
    this.#storing = this.options.offset.advance(offset).then(
      () => {
        this.#offsetFailing = false;
      },
      (error: unknown) => {
        if (this.#offsetFailing) return;
        this.#offsetFailing = true;
        this.options.logger.warn(
          "the Telegram update offset could not be stored; a restart may see updates again (they are deduped)",
          { error: this.options.describe(error) },
        );
      },
    );
    void this.#storing.then(() => {
      this.#storing = undefined;
      const next = this.#nextOffset;
      this.#nextOffset = undefined;
      if (next !== undefined && next > offset) this.#storeOffset(next);
    });
  }

  /** Waits before the next poll while updates are held: until one is taken, or `heldPollMs`. */
  async #heldPoll(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.options.heldPollMs ?? 1_000);
      this.#wake = done;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
    this.#wake = undefined;
  }

  /** Something in a poll that is no update (Telegram never sends one): logged once, then left alone. */
  #warnUnreadable(update: unknown): void {
    let shown: string;
    try {
      shown = JSON.stringify(update)?.slice(0, 200) ?? String(update);
    } catch {
      shown = String(update);
    }
    if (this.#unreadable.has(shown)) return;
    if (this.#unreadable.size < 100) this.#unreadable.add(shown);
    this.options.logger.warn("Telegram sent something that is not an update; it is ignored", {
      update: shown,
    });
  }

  /** Waits out a backoff; false when polling stopped meanwhile. */
  async #pause(failures: number, signal: AbortSignal, maxMs = 30_000): Promise<boolean> {
    const ms = Math.min(maxMs, (this.options.retryMs ?? 1_000) * 2 ** Math.min(failures, 20));
    try {
      await sleep(ms, undefined, { signal });
      return true;
    } catch {
      return false;
    }
  }
}
