import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { CapabilityStatus } from "../../core/availability/capabilities.ts";
import type { AttachmentsConfig } from "../../core/config/attachments-section.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import type { KeyScheme } from "../../store/keys.ts";

export const READ_ATTACHMENT_CAPABILITY = "read_attachment";

/** The `read_attachment` capability: long documents are kept unless `attachments.keep_seconds` is 0. */
export function readAttachmentCapability(limits: AttachmentsConfig): CapabilityStatus {
  return limits.keepSeconds > 0
    ? { available: true }
    : {
        available: false,
        reason: "attachments.keep_seconds is 0: long documents are cut, not kept",
      };
}

/** A short id for a document, the same for the same file: what the model passes to read_attachment. */
export function documentId(fileRef: string): string {
  return createHash("sha1").update(fileRef).digest("hex").slice(0, 12);
}

/** One page of a kept document. */
export interface DocumentPage {
  readonly text: string;
  readonly page: number;
  readonly pages: number;
}

/**
 * Long documents people sent, kept whole in the conversation's slot for
 * `attachments.keep_seconds`, read back page by page (a page is
 * `max_inline_chars` characters, the same cut the first page had inline).
 */
export class DocumentStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: KeyScheme,
  ) {}

  async keep(
    address: ConversationAddress,
    id: string,
    text: string,
    pageChars: number,
    seconds: number,
  ): Promise<void> {
    const key = this.keys.document(address, id);
    await this.redis
      .multi()
      .hset(key, { text, page: String(pageChars) })
      .expire(key, seconds)
      .exec();
  }

  /** The page (from 1), or undefined when the document is no longer kept or has no such page. */
  async page(
    address: ConversationAddress,
    id: string,
    page: number,
  ): Promise<DocumentPage | undefined> {
    const [text, size] = await this.redis.hmget(this.keys.document(address, id), "text", "page");
    if (text === null || text === undefined || !size) return undefined;
    const pageChars = Math.max(1, Number(size));
    const pages = Math.max(1, Math.ceil(text.length / pageChars));
    if (page < 1 || page > pages) return { text: "", page, pages };
    return { text: text.slice((page - 1) * pageChars, page * pageChars), page, pages };
  }
}
