import { setTimeout as sleep } from "node:timers/promises";
import type { Api } from "grammy";
import type { Update } from "grammy/types";
import type { LoggerPort } from "../../core/availability/warnings.ts";
import { isTelegramError } from "./api.ts";
import type { UpdateOffset } from "./update-offset.ts";

export interface UpdatePollerOptions {
  readonly api: Api;
  readonly offset: UpdateOffset;
  /** Takes one update: enqueues it or answers it. Throws when it could not, to be tried again. */
  readonly take: (update: Update) => Promise<void>;
  readonly allowedUpdates: readonly ("message" | "callback_query")[];
  /** How long one `getUpdates` waits for an update, in seconds (Telegram allows up to 50). */
  readonly timeoutSeconds?: number;
  /** The first pause after a failure; it doubles up to 30 s. */
  readonly retryMs?: number;
  /** Tries of one update before it is skipped, so one bad update cannot stop the bot. */
  readonly maxAttempts?: number;
  readonly logger: LoggerPort;
  /** An error for a log line, the token redacted. */
  readonly describe: (error: unknown) => string;
}

/**
 * Long polling that loses nothing: each `getUpdates` asks for the offset
 * after the last update taken, which is what tells Telegram to forget the
 * ones before it, and the offset moves (in Redis, see {@link UpdateOffset})
 * only after an update was taken. An update that fails is tried again before
 * anything after it; a restart starts from the stored offset.
 *
 * grammY's `bot.start()` would confirm an update even when its handler
 * failed and keeps the offset in memory; this keeps grammY's `Api` and
 * middleware and replaces only that loop.
 */
export class UpdatePoller {
  #controller: AbortController | undefined;
  #loop: Promise<void> | undefined;

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

  /** Cancels the waiting `getUpdates` and waits for the update being taken, if any. */
  async stop(): Promise<void> {
    this.#controller?.abort();
    await this.#loop;
    this.#loop = undefined;
    this.#controller = undefined;
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { api, offset: stored, logger, describe } = this.options;
    let offset = await stored.read();
    let failures = 0;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        updates = await api.getUpdates(
          {
            ...(offset !== undefined ? { offset } : {}),
            timeout: this.options.timeoutSeconds ?? 30,
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
      for (const update of updates) {
        // Stopped mid-batch: the rest stays unconfirmed and comes again on the next start.
        if (signal.aborted || !(await this.#take(update, signal))) return;
        offset = update.update_id + 1;
        await stored.advance(offset).catch((error: unknown) =>
          logger.warn(
            "the Telegram update offset could not be stored; a restart may see updates again (they are deduped)",
            {
              error: describe(error),
            },
          ),
        );
      }
    }
  }

  /** Takes one update, trying again on failure; false when polling stopped meanwhile. */
  async #take(update: Update, signal: AbortSignal): Promise<boolean> {
    const attempts = this.options.maxAttempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.take(update);
        return true;
      } catch (error) {
        const last = attempt >= attempts;
        this.options.logger.warn(
          last
            ? `Telegram update ${update.update_id} could not be taken after ${attempts} tries; it is skipped`
            : `Telegram update ${update.update_id} could not be taken; trying it again`,
          { error: this.options.describe(error) },
        );
        if (last) return true;
        if (!(await this.#pause(attempt - 1, signal))) return false;
      }
    }
  }

  /** Waits out a backoff; false when polling stopped meanwhile. */
  async #pause(failures: number, signal: AbortSignal): Promise<boolean> {
    const ms = Math.min(30_000, (this.options.retryMs ?? 1_000) * 2 ** failures);
    try {
      await sleep(ms, undefined, { signal });
      return true;
    } catch {
      return false;
    }
  }
}
