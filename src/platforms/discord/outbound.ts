import { type Client, Routes } from "discord.js";
import type {
  DeliveryOptions,
  DeliveryTarget,
  DirectPerson,
  OutgoingFile,
} from "../../ports/outbound.ts";
import { type Editing, PlatformOutbound, type Posting } from "../platform-outbound.ts";
import { controlRows } from "./components.ts";
import { DiscordFiles } from "./files.ts";
import { discordGone } from "./gone.ts";
import { nonceOf } from "./nonce.ts";
import { DISCORD_TRAITS } from "./traits.ts";
import { uploadToDiscord } from "./upload.ts";

/** Discord's error code for a message that is not there (any more). */
const UNKNOWN_MESSAGE = 10008;

/**
 * The worker's port to Discord, straight over REST (@discordjs/rest queues
 * and waits out rate limits per route), so a worker needs the token but no
 * gateway session and no channel cache. Replies reference the message they
 * answer; the idempotency key rides as the message's nonce with
 * `enforce_nonce`, so Discord itself answers a second post of the same part
 * (within its few minutes) with the message it already made.
 */
export class DiscordOutbound extends PlatformOutbound {
  /** Files people sent, by CDN URL, for the worker's fetcher. */
  readonly files: DiscordFiles;

  constructor(
    private readonly client: Client,
    apiUrl?: string,
  ) {
    super(DISCORD_TRAITS);
    this.files = new DiscordFiles(apiUrl);
  }

  protected async send(target: DeliveryTarget, text: string, posting: Posting): Promise<string> {
    const { idempotencyKey, mayExist, preview, controls } = posting;
    const components = controlRows(controls);
    const sent = (await this.client.rest.post(
      Routes.channelMessages(target.thread ?? target.channel),
      {
        body: {
          content: text,
          nonce: nonceOf(idempotencyKey),
          enforce_nonce: true,
          allowed_mentions: { parse: [], replied_user: false },
          ...(components.length > 0 ? { components } : {}),
          ...(target.replyTo
            ? { message_reference: { message_id: target.replyTo, fail_if_not_exists: false } }
            : {}),
        },
      },
    )) as { id: string; content?: string };
    // A nonce Discord saw in the last minutes answers with that message: a resumed
    // delivery (or the streamed message that is the first part) is brought to this text; a
    // streamed preview leaves it, as it may be the answer itself.
    if (mayExist && !preview && sent.content !== undefined && sent.content !== text) {
      await this.#patch(target, sent.id, text, components);
    }
    return sent.id;
  }

  protected gone(error: unknown, target: DeliveryTarget): unknown {
    return discordGone(error, target.thread ?? target.channel);
  }

  /** The person's DM channel with the bot, which Discord opens (or finds) on asking. */
  protected async directTarget(person: DirectPerson): Promise<DeliveryTarget> {
    const dm = (await this.client.rest.post(Routes.userChannels(), {
      body: { recipient_id: person.user },
    })) as { id: string };
    return {
      platform: "discord",
      workspace: person.workspace,
      channel: dm.id,
      conversation: dm.id,
    };
  }

  /** The message's buttons, if it had any, go (`components: []`) unless the edit sets its own. */
  protected async replace(target: DeliveryTarget, ref: string, text: string, editing: Editing) {
    await this.#patch(target, ref, text, controlRows(editing.controls));
  }

  async #patch(target: DeliveryTarget, ref: string, text: string, components: unknown[]) {
    await this.client.rest.patch(Routes.channelMessage(target.thread ?? target.channel, ref), {
      body: { content: text, components },
    });
  }

  /** Posts a file as a message of its own, once per key (see upload.ts). */
  upload(target: DeliveryTarget, file: OutgoingFile, options: DeliveryOptions): Promise<string> {
    return uploadToDiscord(this.client.rest, target, file, options);
  }

  async typing(target: DeliveryTarget): Promise<void> {
    await this.client.rest.post(Routes.channelTyping(target.thread ?? target.channel));
  }

  /** Deletes one of the bot's messages (the status line); one already gone (10008) is not an error. */
  async remove(target: DeliveryTarget, ref: string): Promise<void> {
    try {
      await this.client.rest.delete(Routes.channelMessage(target.thread ?? target.channel, ref));
    } catch (error) {
      if ((error as { code?: unknown })?.code !== UNKNOWN_MESSAGE) throw error;
    }
  }
}
