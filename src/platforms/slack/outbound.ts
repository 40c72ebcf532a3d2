import type { types } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { type Activity, statusText, THINKING } from "../../core/delivery/activity.ts";
import { isFeedbackPair } from "../../ports/feedback.ts";
import type { FileSource } from "../../ports/file-source.ts";
import type {
  DeliveryOptions,
  DeliveryTarget,
  DirectPerson,
  MessageControl,
  OutgoingFile,
} from "../../ports/outbound.ts";
import { type Editing, PlatformOutbound, type Posting } from "../platform-outbound.ts";
import { controlBlocks } from "./control-blocks.ts";
import { toMrkdwn } from "./format.ts";
import { slackGone } from "./gone.ts";
import { type SlackStreaming, SlackStreams } from "./stream.ts";
import { answerNeighbours } from "./thread-messages.ts";
import { SLACK_TRAITS } from "./traits.ts";
import { uploadToSlack } from "./upload.ts";

/**
 * The worker's port to Slack: replies in the thread of the message they
 * answer, converted to mrkdwn. Each post carries its idempotency key in the
 * message's metadata; a delivery that might be a retry (a resumed turn)
 * looks for that key among the thread's messages (or, in a DM answered in
 * place, the channel's latest) before posting again, and a message found
 * there is brought to the text asked for: a streamed partial whose worker
 * died becomes the answer instead of staying beside it.
 * Rate limits are the WebClient's: it waits out Retry-After and retries.
 */
export class SlackOutbound extends PlatformOutbound {
  /** Files people shared, by `url_private_download`, for the worker's fetcher. */
  readonly files: FileSource | undefined;
  /** Slack's streaming API, where it applies and the setting asks for it (stream.ts). */
  readonly native: SlackStreams;

  /** Set once Slack refused its feedback block here: answers carry plain 👍 / 👎 buttons. */
  #plainFeedback = false;

  constructor(
    private readonly client: WebClient,
    files?: FileSource,
    /** The `slack:` setting `streaming:`, read per answer; default native. */
    streaming: () => SlackStreaming = () => "native",
  ) {
    super(SLACK_TRAITS);
    this.files = files;
    this.native = new SlackStreams(client, streaming);
  }

  protected async send(target: DeliveryTarget, text: string, posting: Posting): Promise<string> {
    const { idempotencyKey, mayExist, preview, controls } = posting;
    const mrkdwn = toMrkdwn(text);
    if (mayExist) {
      const existing = await this.#find(target, idempotencyKey);
      if (existing) {
        // A streamed preview leaves it: it may be the answer itself.
        if (!preview && existing.text !== mrkdwn) {
          await this.#withControls(mrkdwn, controls, (blocks) =>
            this.client.chat.update({
              channel: target.channel,
              ts: existing.ts,
              text: mrkdwn,
              ...(blocks ? { blocks } : {}),
            }),
          );
        }
        return existing.ts;
      }
    }
    const thread = target.thread;
    // Buttons go under the text in Block Kit; `text` stays the notification's.
    const result = await this.#withControls(mrkdwn, controls, (blocks) =>
      this.client.chat.postMessage({
        channel: target.channel,
        text: mrkdwn,
        ...(blocks ? { blocks } : {}),
        ...(thread ? { thread_ts: thread } : {}),
        unfurl_links: false,
        metadata: { event_type: "switchyard_reply", event_payload: { key: idempotencyKey } },
      }),
    );
    return result.ts as string;
  }

  protected gone(error: unknown, target: DeliveryTarget): unknown {
    return slackGone(error, target.channel);
  }

  /** The person's DM with the bot, which `conversations.open` opens when there is none yet (or finds). */
  protected async directTarget(person: DirectPerson): Promise<DeliveryTarget> {
    const opened = await this.client.conversations.open({ users: person.user });
    const channel = opened.channel?.id;
    if (!channel) throw new Error(`Slack opened no DM with ${person.user}`);
    return { platform: "slack", workspace: person.workspace, channel, conversation: channel };
  }

  /**
   * Sends `mrkdwn` with its controls as blocks (none without controls). An
   * answer's 👍 / 👎 go as Slack's feedback block; should Slack refuse it
   * (`invalid_blocks`: nothing was posted), this and every later answer
   * send them as plain buttons instead, which every workspace takes.
   */
  async #withControls<T>(
    mrkdwn: string,
    controls: readonly MessageControl[],
    send: (blocks: types.KnownBlock[] | undefined) => Promise<T>,
  ): Promise<T> {
    if (controls.length === 0) return send(undefined);
    const native = !this.#plainFeedback;
    try {
      return await send(controlBlocks(mrkdwn, controls, { feedbackBlock: native }));
    } catch (error) {
      const code = (error as { data?: { error?: string } }).data?.error;
      if (!native || !isFeedbackPair(controls) || code !== "invalid_blocks") throw error;
      this.#plainFeedback = true;
      return send(controlBlocks(mrkdwn, controls, { feedbackBlock: false }));
    }
  }

  /**
   * Replaces the text and drops any buttons but the edit's own: Slack keeps a
   * message's blocks through an update that sends none, so an empty list is
   * sent to remove them.
   */
  protected async replace(target: DeliveryTarget, ref: string, text: string, editing: Editing) {
    const mrkdwn = toMrkdwn(text);
    await this.#withControls(mrkdwn, editing.controls, (blocks) =>
      this.client.chat.update({
        channel: target.channel,
        ts: ref,
        text: mrkdwn,
        blocks: blocks ?? [],
      }),
    );
  }

  /** Shares a file in the answer's thread; the ref is the Slack file id (see upload.ts). */
  upload(target: DeliveryTarget, file: OutgoingFile, options: DeliveryOptions): Promise<string> {
    return uploadToSlack(this.client, target, file, options);
  }

  /** Slack has no typing indicator for bots outside assistant threads; the status is best effort. */
  async typing(target: DeliveryTarget): Promise<void> {
    await this.showActivity(target, THINKING);
  }

  /**
   * The thread's status under the bot's name ("is searching the web…"), or
   * none (an empty status) once the answer landed. Slack also clears it
   * when the bot posts in the thread, and after two minutes without a post.
   */
  async showActivity(target: DeliveryTarget, activity: Activity | undefined): Promise<void> {
    const thread = target.thread;
    if (!thread) return;
    const status = activity ? statusText(activity) : "";
    await this.client.assistant.threads
      .setStatus({ channel_id: target.channel, thread_ts: thread, status })
      .catch(() => {});
  }

  /** The bot's message carrying this key, among the thread's replies or the DM's latest messages. */
  async #find(
    target: DeliveryTarget,
    key: string,
  ): Promise<{ ts: string; text: string | undefined } | undefined> {
    const found = (await answerNeighbours(this.client, target))?.find(
      (m) => (m.metadata?.event_payload as { key?: string } | undefined)?.key === key,
    );
    return found?.ts ? { ts: found.ts, text: found.text } : undefined;
  }
}
