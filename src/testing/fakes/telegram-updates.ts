/**
 * The fake Bot API's updates, delivered as Telegram delivers them: held
 * until confirmed, handed out by `getUpdates` with real long-poll semantics
 * (an `offset` confirms every update below it, a `timeout` parks the request
 * until an update arrives or the time is up, a second poller terminates the
 * first with 409), or posted to a webhook with the secret token header and
 * posted again until it answers 2xx.
 */
import type { Update } from "grammy/types";

export interface WebhookSetting {
  url: string;
  secretToken?: string;
}

export interface WebhookDelivery {
  updateId: number;
  status: number;
  at: number;
}

/** A Bot API error, as the fake answers it. */
export class BotApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: { retry_after?: number },
  ) {
    super(description);
  }
}

interface Waiter {
  readonly wake: (reason: "update" | "conflict") => void;
}

export class UpdateQueue {
  /** Unconfirmed updates, oldest first. */
  readonly pending: Update[] = [];
  readonly deliveries: WebhookDelivery[] = [];
  webhook: WebhookSetting | undefined;
  #nextId = 700_000_000;
  #waiter: Waiter | undefined;
  #delivering = false;
  #closed = false;
  #timers = new Set<NodeJS.Timeout>();

  /** Adds an update (its id assigned), waking a parked poll or posting it to the webhook. */
  push(update: Omit<Update, "update_id">): Update {
    const full = { ...update, update_id: this.#nextId++ } as Update;
    this.pending.push(full);
    this.#waiter?.wake("update");
    void this.#deliver();
    return full;
  }

  /**
   * Adds an update exactly as given (a recorded payload, an odd shape),
   * keeping its `update_id`; later updates get higher ids, as Telegram's
   * grow. The update need not be valid: it is what a test replays.
   */
  inject(update: Update): Update {
    const id = (update as { update_id?: unknown }).update_id;
    if (typeof id === "number" && Number.isSafeInteger(id) && id >= this.#nextId) {
      this.#nextId = id + 1;
    }
    this.pending.push(update);
    this.#waiter?.wake("update");
    void this.#deliver();
    return update;
  }

  /**
   * Telegram's at-least-once delivery: the update comes again, as when the
   * confirming `getUpdates` or the webhook's 200 was lost. Polled, it is
   * unconfirmed again (a poller that kept its offset will not ask for it);
   * with a webhook, it is posted again.
   */
  redeliver(update: Update): void {
    if (!this.pending.some((u) => u.update_id === update.update_id)) {
      this.pending.push(update);
      this.pending.sort((a, b) => a.update_id - b.update_id);
    }
    this.#waiter?.wake("update");
    void this.#deliver();
  }

  /** `getUpdates`: confirms below `offset`, returns what is left, parking up to `timeout` seconds. */
  async poll(params: { offset?: number; limit?: number; timeout?: number }, gone: AbortSignal) {
    if (this.webhook) {
      throw new BotApiError(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    }
    // Only one poller at a time: a new one terminates the one waiting.
    this.#waiter?.wake("conflict");
    const offset = params.offset ?? 0;
    if (offset > 0) this.#confirmBelow(offset);
    const available = () =>
      this.pending.filter((u) => u.update_id >= offset).slice(0, params.limit ?? 100);
    const now = available();
    const timeout = params.timeout ?? 0;
    if (now.length > 0 || timeout <= 0 || this.#closed) return now;
    const reason = await new Promise<"update" | "conflict" | "timeout">((resolve) => {
      const timer = setTimeout(() => finish("timeout"), timeout * 1000);
      this.#timers.add(timer);
      const waiter: Waiter = { wake: (why) => finish(why) };
      const finish = (why: "update" | "conflict" | "timeout") => {
        clearTimeout(timer);
        this.#timers.delete(timer);
        if (this.#waiter === waiter) this.#waiter = undefined;
        gone.removeEventListener("abort", onGone);
        resolve(why);
      };
      const onGone = () => finish("timeout");
      gone.addEventListener("abort", onGone);
      this.#waiter = waiter;
    });
    if (reason === "conflict") {
      throw new BotApiError(
        409,
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      );
    }
    return available();
  }

  setWebhook(setting: WebhookSetting | undefined, dropPending = false): void {
    this.webhook = setting;
    if (dropPending) this.pending.splice(0);
    if (setting) this.#waiter?.wake("conflict");
    void this.#deliver();
  }

  close(): void {
    this.#closed = true;
    this.#waiter?.wake("update");
    for (const timer of this.#timers) clearTimeout(timer);
  }

  #confirmBelow(offset: number): void {
    const keep = this.pending.filter((u) => u.update_id >= offset);
    this.pending.splice(0, this.pending.length, ...keep);
  }

  /** Posts pending updates to the webhook in order, one at a time, retrying until each gets a 2xx. */
  async #deliver(): Promise<void> {
    if (this.#delivering || !this.webhook) return;
    this.#delivering = true;
    try {
      while (this.webhook && !this.#closed && this.pending.length > 0) {
        const update = this.pending[0] as Update;
        const status = await postUpdate(this.webhook, update);
        this.deliveries.push({ updateId: update.update_id, status, at: Date.now() });
        if (status >= 200 && status < 300) {
          this.pending.shift();
        } else {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 100);
            this.#timers.add(timer);
          });
        }
      }
    } finally {
      this.#delivering = false;
    }
  }
}

/** One webhook POST as Telegram makes it; a connection failure reads as status 0. */
export async function postUpdate(webhook: WebhookSetting, update: Update): Promise<number> {
  const secret = webhook.secretToken;
  try {
    const response = await fetch(webhook.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(secret !== undefined ? { "x-telegram-bot-api-secret-token": secret } : {}),
      },
      body: JSON.stringify(update),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}
