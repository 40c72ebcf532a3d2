import type { ChatStreamer, WebClient } from "@slack/web-api";
import type {
  DeliveryTarget,
  MessageControl,
  NativeStream,
  NativeStreaming,
  StreamOptions,
} from "../../ports/outbound.ts";
import { controlBlocks, controlsBlock } from "./control-blocks.ts";
import { toMrkdwn } from "./format.ts";
import { answerNeighbours } from "./thread-messages.ts";

/** How answers stream on Slack: its streaming API where Slack accepts it, or post-and-edit. */
export type SlackStreaming = "native" | "edit";

/** The metadata of a message the ingress posts on the spot: never an answer, so never a stream to resume. */
export const NOTICE_METADATA = { event_type: "switchyard_notice", event_payload: {} };

/** Metadata event types of the bot's own finished messages: whatever carries one is no stream in progress. */
const SWITCHYARD_EVENTS = new Set(["switchyard_reply", NOTICE_METADATA.event_type]);

/** Slack's answer to a stream call once the stream has ended (stopped, or timed out by Slack). */
const NOT_STREAMING = "message_not_in_streaming_state";

/**
 * Slack's streaming API (`chat.startStream`, `appendStream`, `stopStream`),
 * through `@slack/web-api`'s {@link ChatStreamer}. Slack streams a reply in a
 * thread (an assistant thread is one) to a recipient; a message outside a
 * thread, or a recipient unknown outside a DM, streams by post-and-edit, as
 * does every message when the `slack:` setting says `streaming: edit`.
 *
 * The finished message carries the part's key in its metadata, as a posted
 * one does, so a resumed delivery finds it.
 */
export class SlackStreams implements NativeStreaming {
  constructor(
    private readonly client: WebClient,
    private readonly mode: () => SlackStreaming,
  ) {}

  async open(
    target: DeliveryTarget,
    { key, recipient }: StreamOptions,
  ): Promise<NativeStream | undefined> {
    const thread = target.thread;
    if (this.mode() !== "native" || !thread) return undefined;
    const dm = target.channel.startsWith("D");
    if (!dm && !recipient) return undefined;
    const streamer = this.client.chatStream({
      channel: target.channel,
      thread_ts: thread,
      ...(recipient ? { recipient_user_id: recipient, recipient_team_id: target.workspace } : {}),
      // Switchyard paces the appends itself (StreamingReply): each one goes out as it comes.
      buffer_size: 1,
    });
    return new SlackAnswerStream(this.client, streamer, target, key);
  }

  /**
   * Ends a crashed run's stream and replaces its text: what the run appended
   * last is unknown, so the answer is set whole by `chat.update`.
   */
  async finish(
    target: DeliveryTarget,
    ref: string,
    text: string,
    { key }: StreamOptions,
    controls: readonly MessageControl[] = [],
  ): Promise<void> {
    await ignoreEnded(
      this.client.chat.stopStream({ channel: target.channel, ts: ref, metadata: keyed(key) }),
    );
    await replace(this.client, target, ref, text, key, controls);
  }

  /**
   * The bot's message after the one it answers that carries no key: a
   * stream whose start reached Slack while its worker died (a finished
   * answer, a post or a stopped stream carries its key, and an answer given
   * on the spot, a command's or a refusal, is marked a notice). Slack's own
   * order (message ts) decides "after", not the worker's clock.
   */
  async find(target: DeliveryTarget): Promise<string | undefined> {
    const after = target.replyTo ?? target.thread;
    const found = (await answerNeighbours(this.client, target))?.find(
      (m) =>
        m.bot_id !== undefined &&
        m.ts !== undefined &&
        (after === undefined || Number(m.ts) > Number(after)) &&
        !SWITCHYARD_EVENTS.has(m.metadata?.event_type ?? ""),
    );
    return found?.ts;
  }
}

/** One answer streaming into its thread. */
class SlackAnswerStream implements NativeStream {
  readonly kind = "message";
  /** The markdown appended so far. */
  #sent = "";
  #ended = false;

  constructor(
    private readonly client: WebClient,
    private readonly streamer: ChatStreamer,
    private readonly target: DeliveryTarget,
    private readonly key: string,
  ) {}

  async append(text: string): Promise<string | undefined> {
    // Slack cannot take back what it showed: text that no longer extends it waits for the finish.
    if (this.#ended || !text.startsWith(this.#sent)) return this.streamer.ts;
    const more = text.slice(this.#sent.length);
    if (more === "") return this.streamer.ts;
    await this.streamer.append({ markdown_text: more });
    this.#sent = text;
    return this.streamer.ts;
  }

  /**
   * Stops the stream with the rest of `text`; an answer that does not extend
   * what streamed (a long answer's first part, a stream Slack already ended)
   * is set whole once the stream has stopped.
   */
  async finish(text: string, controls: readonly MessageControl[] = []): Promise<void> {
    const ts = this.streamer.ts;
    if (ts === undefined) return;
    let rest = text.startsWith(this.#sent) ? text.slice(this.#sent.length) : undefined;
    if (!this.#ended) {
      const stop = (feedbackBlock: boolean) =>
        this.streamer.stop({
          ...(rest ? { markdown_text: rest } : {}),
          // Rendered under the finished message: the answer's 👍 / 👎.
          ...(controls.length > 0 ? { blocks: [controlsBlock(controls, { feedbackBlock })] } : {}),
          metadata: keyed(this.key),
        });
      const stopped = await ignoreEnded(
        stop(true).catch((error: unknown) => {
          // A workspace without Slack's feedback block: plain buttons, as a post falls back.
          if (slackError(error) !== "invalid_blocks" || controls.length === 0) throw error;
          return stop(false);
        }),
      );
      this.#ended = true;
      if (!stopped) rest = undefined;
    } else if (rest !== "") rest = undefined;
    if (rest === undefined) await replace(this.client, this.target, ts, text, this.key, controls);
  }

  async stop(): Promise<void> {
    if (this.#ended || this.streamer.ts === undefined) return;
    this.#ended = true;
    await ignoreEnded(this.streamer.stop({ metadata: keyed(this.key) }));
  }
}

function keyed(key: string) {
  return { event_type: "switchyard_reply", event_payload: { key } };
}

/** Sets a streamed message's text whole, with the part's key, as a post would have. */
async function replace(
  client: WebClient,
  target: DeliveryTarget,
  ts: string,
  text: string,
  key: string,
  controls: readonly MessageControl[] = [],
): Promise<void> {
  const mrkdwn = toMrkdwn(text);
  const update = (feedbackBlock: boolean) =>
    client.chat.update({
      channel: target.channel,
      ts,
      text: mrkdwn,
      blocks: controls.length > 0 ? controlBlocks(mrkdwn, controls, { feedbackBlock }) : [],
      metadata: keyed(key),
    });
  await update(true).catch((error: unknown) => {
    if (slackError(error) !== "invalid_blocks" || controls.length === 0) throw error;
    return update(false);
  });
}

function slackError(error: unknown): string | undefined {
  return (error as { data?: { error?: string } }).data?.error;
}

/** Runs a stop; false when Slack had ended the stream already (stopped before, or timed out). */
async function ignoreEnded(call: Promise<unknown>): Promise<boolean> {
  try {
    await call;
    return true;
  } catch (error) {
    if (slackError(error) === NOT_STREAMING) return false;
    throw error;
  }
}
