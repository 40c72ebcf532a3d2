import type { AttachmentContent } from "../core/attachments/content.ts";
import type { Capabilities } from "../core/availability/capabilities.ts";
import type { Attachment, ConversationAddress } from "../core/conversation.ts";

/**
 * Where a platform file's bytes are: a URL to GET (with the headers that
 * authorize it), or the bytes themselves (the console reads a local file).
 * `platformHost` says the URL is on the platform's own API host (the Bot
 * API's file root, the configured Slack API), which the SSRF guard lets
 * through; any other URL goes through the guard.
 */
export type FileLocation =
  | {
      readonly kind: "url";
      readonly url: string;
      readonly headers?: Readonly<Record<string, string>>;
      readonly platformHost: boolean;
      /** What must never appear in a log or a note (the token in a Telegram file URL). */
      readonly secrets?: readonly string[];
    }
  | { readonly kind: "bytes"; readonly bytes: Uint8Array };

/** A file the platform will not hand over; the message is safe to show (it holds no token). */
export class FileSourceError extends Error {
  override readonly name = "FileSourceError";
}

/**
 * How the worker finds a platform's file: each channel implements it over
 * its own API (Slack `url_private_download` with the bot token, Telegram
 * `getFile`, Discord's CDN URL). It only says where; one fetcher downloads.
 */
export interface FileSource {
  /**
   * `address` is the conversation the file was sent in: with several bot
   * accounts on a platform, the account that received it is the one whose
   * token can fetch it.
   */
  locate(
    attachment: Attachment,
    signal: AbortSignal,
    address?: ConversationAddress,
  ): Promise<FileLocation>;
}

/**
 * What a turn hands the model for the files people sent: each attachment
 * fetched (or taken from the short-lived cache), sniffed, and made into
 * something the model reads. In attachment order; never throws for a file
 * (a failure is that file's note). `capabilities` are the turn's, for the
 * model it runs on: they decide whether an image goes as an image part or
 * as the "cannot see images" note, and whether voice is transcribed.
 */
export interface AttachmentReader {
  read(
    address: ConversationAddress,
    attachments: readonly Attachment[],
    signal: AbortSignal,
    capabilities: Capabilities,
  ): Promise<readonly AttachmentContent[]>;
}
