import { type Api, InputFile } from "grammy";
import type { LoggerPort } from "../../core/logger.ts";
import type { DeliveryOptions, DeliveryTarget, OutgoingFile } from "../../ports/outbound.ts";
import { UploadRefusedError } from "../upload-error.ts";
import { isTelegramError } from "./api.ts";
import { placementOf } from "./placement.ts";
import type { SentLedger } from "./sent-ledger.ts";

/** What Telegram shows as a photo (recompressed, inline); anything else goes as a document. */
const PHOTO_TYPES = new Set(["image/png", "image/jpeg", "image/webp"]);
/** The Bot API's photo limits: 10 MB, width + height at most 10,000, sides at most 20:1. */
const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
const PHOTO_MAX_SIDES = 10_000;
const PHOTO_MAX_RATIO = 20;
/** sendPhoto's refusals of a picture it cannot take as a photo: it still goes, as a document. */
const NOT_A_PHOTO = /PHOTO_INVALID_DIMENSIONS|IMAGE_PROCESS_FAILED|PHOTO_EXT_INVALID/;

/** What to do about the refusals a bot can fix, by Telegram's description. */
const FIXES: readonly [RegExp, string][] = [
  [/kicked|not a member|blocked by the user/i, "Add the bot to the chat again (or unblock it)."],
  [/not enough rights|CHAT_SEND_(DOCS|PHOTOS)_FORBIDDEN/i, "Let the bot send media in this chat."],
  [
    /too big|Entity Too Large/i,
    "Bots send files up to 50 MB (2 GB through a local Bot API server).",
  ],
];

export interface TelegramUploadDeps {
  readonly api: Api;
  readonly ledger: SentLedger;
  readonly logger?: LoggerPort | undefined;
}

/**
 * Sends a file a tool made into the chat and topic of the answer, as a reply
 * to the message answered: a picture within Telegram's photo limits by
 * `sendPhoto`, anything else by `sendDocument`, the bytes and name in an
 * `InputFile` (grammY sends it multipart). The ref is the message id.
 *
 * Telegram takes no nonce, so the {@link SentLedger} makes it land once, as
 * for text: the intent is recorded before the send, the message after, the
 * first recorded wins and a racing copy is deleted.
 */
export async function uploadToTelegram(
  { api, ledger, logger }: TelegramUploadDeps,
  target: DeliveryTarget,
  file: OutgoingFile,
  { idempotencyKey }: DeliveryOptions,
): Promise<string> {
  const key = ledger.key(`file:${idempotencyKey}`, 0);
  const state = await ledger.intend(key);
  if (state.kind === "sent") return state.messageId;
  if (state.kind === "sending") {
    logger?.warn(
      "a Telegram file is sent again: the worker that began sending it stopped before Telegram answered, so it may appear twice",
      { chat: target.channel, file: file.name },
    );
  }
  const sent = await send(api, target, file).catch((error: unknown) => {
    throw refusal(error, file);
  });
  const id = String(sent);
  const winner = await ledger.record(key, id);
  if (winner !== id) {
    // Another delivery of the same file got there first: keep one copy.
    await api.deleteMessage(target.channel, sent).catch(() => {});
  }
  return winner;
}

async function send(api: Api, target: DeliveryTarget, file: OutgoingFile): Promise<number> {
  const where = placementOf(target);
  if (await fitsAsPhoto(file)) {
    try {
      return (await api.sendPhoto(target.channel, inputFile(file), where)).message_id;
    } catch (error) {
      if (!isTelegramError(error, 400, NOT_A_PHOTO)) throw error;
    }
  }
  return (await api.sendDocument(target.channel, inputFile(file), where)).message_id;
}

/**
 * Whether Telegram takes the file as a photo: its type, size and dimensions, read from the bytes.
 * sharp is imported here, at the first picture, not with the channel: it loads libvips, a native
 * library of some 25 MB that a worker whose bot sends no pictures never needs (issue 36). A
 * picture whose size cannot be read, sharp missing included, goes as a document.
 */
export async function fitsAsPhoto(file: OutgoingFile): Promise<boolean> {
  if (!PHOTO_TYPES.has(file.type) || file.bytes.byteLength > PHOTO_MAX_BYTES) return false;
  const { width, height } = await import("sharp")
    .then(({ default: sharp }) => sharp(file.bytes).metadata())
    .catch(() => ({ width: undefined, height: undefined }));
  if (!width || !height) return false;
  return (
    width + height <= PHOTO_MAX_SIDES &&
    Math.max(width, height) / Math.min(width, height) <= PHOTO_MAX_RATIO
  );
}

/**
 * The bytes under the file's name. grammY writes the multipart file name
 * unquoted (`filename=my chart.png`), which a strict reader cuts at the
 * space or drops; quoted here, it reads as the name people see, as curl
 * sends it. grammY is pinned, so this cannot double-quote unnoticed.
 */
function inputFile(file: OutgoingFile): InputFile {
  const name = file.name.replace(/[\r\n]+/g, " ").replace(/["\\]/g, "'");
  return new InputFile(file.bytes, `"${name}"`);
}

function refusal(error: unknown, file: OutgoingFile): unknown {
  if (!isTelegramError(error)) return error;
  const fix = FIXES.find(([pattern]) => pattern.test(error.description))?.[1];
  return new UploadRefusedError("Telegram", file.name, error.description, fix, error);
}
