import type { ToolFileRecord } from "../core/agent/checkpoint.ts";
import { notDelivered, notSentHere } from "../core/attachments/outgoing.ts";
import { type ConversationAddress, conversationKey } from "../core/conversation.ts";
import type { DeliveryTarget, Outbound } from "../ports/outbound.ts";
import { UploadRefusedError } from "../ports/upload-refused.ts";
import type { DeliveryEnvironment } from "./delivery-environment.ts";

/** The idempotency key of an answer's file: the same in every run of the turn. */
export function fileKey(turnId: string, index: number): string {
  return `${turnId}-file-${index}`;
}

/**
 * The answer's text as it goes out: with a line naming the files when the
 * platform takes none from this bot, so the person knows something was
 * meant for them. The same bytes in every run of the turn (the parts split
 * from it are recorded by position).
 */
export function answerText(
  answer: string,
  files: readonly ToolFileRecord[],
  outbound: Outbound,
): string {
  const text = answer.trim() === "" ? "(no answer)" : answer;
  if (files.length === 0 || outbound.upload) return text;
  return `${text}\n\n${notSentHere(files.map((f) => f.name))}`;
}

/**
 * Uploads one of the answer's files, once per key (`mayExist` on a resumed
 * turn, as for posts). A platform's refusal (its message names the file,
 * the reason and the fix), or bytes that expired before delivery, become
 * one note in the conversation and the turn ends as it
 * would; any other failure is thrown, so the delivery is retried like a
 * post that failed. Returns the ref the checkpoint records.
 */
export async function sendFile(
  env: DeliveryEnvironment,
  address: ConversationAddress,
  target: DeliveryTarget,
  file: { readonly record: ToolFileRecord; readonly key: string; readonly resumed: boolean },
): Promise<string> {
  const outbound = env.outbounds[address.platform] as Outbound;
  const { record, key, resumed } = file;
  // At most one note stands in for a file, under the file's own key.
  const note = (text: string) =>
    outbound.post(target, text, { idempotencyKey: `${key}-note`, mayExist: resumed });
  const bytes = await env.toolFiles?.load(address, record.ref);
  if (!bytes || !outbound.upload) {
    env.logger.warn("a file of the answer was gone before it could be sent", {
      conversation: conversationKey(address),
      file: record.name,
    });
    return note(
      notDelivered(
        record.name,
        "it was kept for attachments.cache_seconds, and that time ran out first",
      ),
    );
  }
  try {
    return await outbound.upload(
      target,
      { name: record.name, type: record.type, bytes },
      { idempotencyKey: key, mayExist: resumed },
    );
  } catch (error) {
    if (!(error instanceof UploadRefusedError)) throw error;
    env.logger.warn("the platform refused a file of the answer", {
      conversation: conversationKey(address),
      file: record.name,
      error: error.message,
    });
    return note(`_(${error.message})_`);
  }
}
