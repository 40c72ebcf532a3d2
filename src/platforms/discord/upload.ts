import { DiscordAPIError, type REST, Routes } from "discord.js";
import type { DeliveryOptions, DeliveryTarget, OutgoingFile } from "../../ports/outbound.ts";
import { UploadRefusedError } from "../upload-error.ts";
import { nonceOf } from "./nonce.ts";

/** What to do about the refusals a bot can fix, by Discord's error code. */
const FIXES: Readonly<Record<string, string>> = {
  "50013": "Give the bot Attach Files (and Send Messages) in this channel.",
  "50001": "The bot cannot see this channel: give it View Channel, or invite it again.",
  "40005": "Discord takes files up to 10 MB from a bot in a server without boosts.",
  "10003": "The channel no longer exists.",
};

/**
 * Posts a file a tool made into the answer's channel or thread, replying to
 * the message answered: one multipart request (`payload_json` and
 * `files[0]`) through discord.js's REST, which waits out rate limits. The
 * idempotency key rides as the nonce with `enforce_nonce`, as for text, so
 * Discord answers a repeated upload (within its few minutes) with the
 * message it already made. The ref is that message's id.
 */
export async function uploadToDiscord(
  rest: REST,
  target: DeliveryTarget,
  file: OutgoingFile,
  { idempotencyKey }: DeliveryOptions,
): Promise<string> {
  try {
    const sent = (await rest.post(Routes.channelMessages(target.thread ?? target.channel), {
      body: {
        nonce: nonceOf(`file:${idempotencyKey}`),
        enforce_nonce: true,
        allowed_mentions: { parse: [], replied_user: false },
        attachments: [{ id: 0, filename: file.name }],
        ...(target.replyTo
          ? { message_reference: { message_id: target.replyTo, fail_if_not_exists: false } }
          : {}),
      },
      files: [{ name: file.name, data: Buffer.from(file.bytes), contentType: file.type }],
    })) as { id: string };
    return sent.id;
  } catch (error) {
    if (!(error instanceof DiscordAPIError)) throw error;
    const reason = `${error.message} (HTTP ${error.status}, code ${error.code})`;
    throw new UploadRefusedError("Discord", file.name, reason, FIXES[String(error.code)], error);
  }
}
