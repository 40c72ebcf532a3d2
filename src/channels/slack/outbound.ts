import type { WebClient } from "@slack/web-api";
import type { DeliveryTarget, Outbound } from "../outbound.ts";
import { toMrkdwn } from "./mrkdwn.ts";

/** Slack shows about 4,000 characters of a message before "Show more"; mrkdwn conversion adds a little. */
const MESSAGE_LIMIT = 3_500;

/**
 * The worker's port to Slack: replies in the thread of the message they
 * answer, converted to mrkdwn. Each post carries its idempotency key in the
 * message's metadata; a delivery that might be a retry (a resumed turn)
 * looks for that key among the thread's messages before posting again.
 * Rate limits are the WebClient's: it waits out Retry-After and retries.
 */
export class SlackOutbound implements Outbound {
  readonly maxLength = MESSAGE_LIMIT;
  readonly canEdit = true;

  constructor(private readonly client: WebClient) {}

  async post(
    target: DeliveryTarget,
    text: string,
    { idempotencyKey, mayExist = false }: { idempotencyKey: string; mayExist?: boolean },
  ): Promise<string> {
    if (mayExist) {
      const existing = await this.#find(target, idempotencyKey);
      if (existing) return existing;
    }
    const thread = target.thread;
    const result = await this.client.chat.postMessage({
      channel: target.channel,
      text: toMrkdwn(text),
      ...(thread ? { thread_ts: thread } : {}),
      unfurl_links: false,
      metadata: { event_type: "switchyard_reply", event_payload: { key: idempotencyKey } },
    });
    return result.ts as string;
  }

  async edit(target: DeliveryTarget, ref: string, text: string): Promise<void> {
    await this.client.chat.update({ channel: target.channel, ts: ref, text: toMrkdwn(text) });
  }

  /** Slack has no typing indicator for bots outside assistant threads; the status is best effort. */
  async typing(target: DeliveryTarget): Promise<void> {
    const thread = target.thread;
    if (!thread) return;
    await this.client.assistant.threads
      .setStatus({ channel_id: target.channel, thread_ts: thread, status: "is thinking…" })
      .catch(() => {});
  }

  async #find(target: DeliveryTarget, key: string): Promise<string | undefined> {
    const thread = target.thread;
    if (!thread) return undefined;
    const replies = await this.client.conversations
      .replies({ channel: target.channel, ts: thread, include_all_metadata: true, limit: 200 })
      .catch(() => undefined);
    const found = replies?.messages?.find(
      (m) => (m.metadata?.event_payload as { key?: string } | undefined)?.key === key,
    );
    return found?.ts;
  }
}
