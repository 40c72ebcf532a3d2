import { WebAPIPlatformError, type WebClient } from "@slack/web-api";
import type { DeliveryOptions, DeliveryTarget, OutgoingFile } from "../../ports/outbound.ts";
import { UploadRefusedError } from "../upload-error.ts";
import { answerNeighbours, type ListedMessage } from "./thread-messages.ts";

/** What to do about the refusals a bot can fix, by Slack's error code. */
const FIXES: Readonly<Record<string, string>> = {
  not_in_channel: "Invite the bot to the channel (/invite @bot) and ask again.",
  channel_not_found: "The bot cannot see this channel: invite it, or check the channel id.",
  missing_scope:
    "Add the files:write scope to the Slack app (deploy/slack/manifest.yaml) and reinstall it.",
  file_uploads_disabled: "A workspace admin has turned file uploads off.",
  file_upload_size_restricted: "The workspace limits the size of uploads; a smaller file may pass.",
};

/**
 * Shares a file a tool made in the thread the answer is in, through the
 * WebClient's `filesUploadV2` (files.getUploadURLExternal, the bytes to
 * the upload URL, files.completeUploadExternal with the channel and thread).
 *
 * The ref is the Slack file id, not a message ts: Slack shares the file
 * after completeUploadExternal answers, so the ts of the message that shows
 * it may not be known yet, while the id is, and files.info and the file
 * message's `files[].id` both find it later.
 *
 * Slack takes no nonce for files and puts no metadata on file messages, so
 * a delivery that may repeat (`mayExist`) looks for the bot's own message
 * carrying a file of the same name and size in the thread (after the
 * message answered, when there is one) and answers with that file instead
 * of uploading a second copy.
 */
export async function uploadToSlack(
  client: WebClient,
  target: DeliveryTarget,
  file: OutgoingFile,
  { mayExist = false }: DeliveryOptions,
): Promise<string> {
  if (mayExist) {
    const found = await findUpload(client, target, file);
    if (found) return found;
  }
  try {
    const bytes = { file: Buffer.from(file.bytes), filename: file.name, title: file.name };
    const result = await client.filesUploadV2(
      target.thread
        ? { ...bytes, channel_id: target.channel, thread_ts: target.thread }
        : { ...bytes, channel_id: target.channel },
    );
    const id = result.files.flatMap((completed) => completed.files ?? [])[0]?.id;
    if (!id) throw new Error(`Slack completed the upload of "${file.name}" without a file id`);
    return id;
  } catch (error) {
    if (!(error instanceof WebAPIPlatformError)) throw error;
    const code = String(error.data.error);
    throw new UploadRefusedError("Slack", file.name, code, FIXES[code], error);
  }
}

/** The id of a file the bot already shared for this answer: same name, same size. */
async function findUpload(
  client: WebClient,
  target: DeliveryTarget,
  file: OutgoingFile,
): Promise<string | undefined> {
  const [listed, me] = await Promise.all([answerNeighbours(client, target), client.auth.test()]);
  const mine = (m: ListedMessage) =>
    m.user === me.user_id && (target.replyTo === undefined || isAfter(m.ts, target.replyTo));
  for (const message of listed?.filter(mine) ?? []) {
    const same = message.files?.find(
      (f) => f.name === file.name && f.size === file.bytes.byteLength,
    );
    if (same?.id) return same.id;
  }
  return undefined;
}

/** Whether Slack timestamp `ts` ("1700000000.000200") comes after `than`. */
function isAfter(ts: string | undefined, than: string): boolean {
  if (ts === undefined) return false;
  const [s = 0, us = 0] = ts.split(".").map(Number);
  const [t = 0, tus = 0] = than.split(".").map(Number);
  return s > t || (s === t && us > tus);
}
