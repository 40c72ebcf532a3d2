import type { Redis } from "ioredis";
import type { Dispatcher } from "undici";
import { capOf } from "../../core/attachments/caps.ts";
import { type AttachmentContent, namedOnly } from "../../core/attachments/content.ts";
import { declaredKind } from "../../core/attachments/kind.ts";
import { VISION_CAPABILITY } from "../../core/attachments/model-vision.ts";
import { type Capabilities, capabilityStatus } from "../../core/availability/capabilities.ts";
import type { AttachmentsConfig } from "../../core/config/attachments-section.ts";
import type { Attachment, ConversationAddress } from "../../core/conversation.ts";
import type { LoggerPort } from "../../core/logger.ts";
import { canonicalJson } from "../../core/tools/canonical-json.ts";
import type { AttachmentReader, FileSource } from "../../ports/file-source.ts";
import type { KeyScheme } from "../../store/keys.ts";
import { PUBLIC_ONLY } from "../web/address-policy.ts";
import { guardedAgent } from "../web/guarded-agent.ts";
import { DocumentParsers } from "./document-parsers.ts";
import { DocumentStore, READ_ATTACHMENT_CAPABILITY } from "./document-store.ts";
import { download } from "./download.ts";
import { type ReadingPowers, readBytes, tooBig } from "./read-one.ts";
import { sniffType } from "./sniff.ts";
import type { Transcriber } from "./transcribe.ts";

export interface FileReaderOptions {
  readonly redis: Redis;
  readonly keys: KeyScheme;
  /** The platform's file source (its outbound's `files`), by platform name. */
  readonly sources: (platform: string) => FileSource | undefined;
  readonly limits: () => AttachmentsConfig;
  readonly transcriber?: Transcriber;
  /** The SSRF guard for URLs off the platform's host; default: public addresses only. */
  readonly guard?: Dispatcher;
  /** The threads documents are read on; default: this process's one pool. */
  readonly parsers?: DocumentParsers;
  readonly logger?: LoggerPort & { info?(message: string, fields?: Record<string, unknown>): void };
}

/**
 * The one fetcher: for each file of a turn, in order, the cached result when
 * a worker already read it (a resumed turn, a retried step), else locate it
 * through the platform's {@link FileSource}, download it within its kind's
 * cap, the turn's remaining total and the time cap, sniff its type from the
 * bytes, and read it (see `readBytes`). The result is cached under the file
 * id for `attachments.cache_seconds`. Failures are notes, never throws.
 */
export class FileReader implements AttachmentReader {
  #guard: Dispatcher | undefined;
  readonly #documents: DocumentStore;
  readonly #parsers: DocumentParsers;

  constructor(private readonly options: FileReaderOptions) {
    this.#guard = options.guard;
    this.#parsers = options.parsers ?? processParsers();
    this.#documents = new DocumentStore(options.redis, options.keys);
  }

  async read(
    address: ConversationAddress,
    attachments: readonly Attachment[],
    signal: AbortSignal,
    capabilities: Capabilities,
  ): Promise<readonly AttachmentContent[]> {
    const limits = this.options.limits();
    const keeping = capabilityStatus(capabilities, READ_ATTACHMENT_CAPABILITY).available;
    const powers: ReadingPowers = {
      vision: capabilityStatus(capabilities, VISION_CAPABILITY),
      transcription: capabilityStatus(capabilities, "transcription"),
      transcriber: this.options.transcriber,
      limits,
      signal,
      parsers: this.#parsers,
      keep: keeping
        ? (id, text) =>
            this.#documents.keep(address, id, text, limits.maxInlineChars, limits.keepSeconds)
        : undefined,
    };
    // What the result depends on besides the file: a change of settings reads it anew. The
    // vision status is whole: the note of a text model names that model.
    const settings = canonicalJson({
      limits,
      vision: powers.vision,
      transcription: powers.transcription.available,
      keeping,
    });
    let left = limits.maxTurnBytes;
    const out: AttachmentContent[] = [];
    for (const attachment of attachments) {
      const key = this.options.keys.attachment(address, `${attachment.ref}\0${settings}`);
      const cached = await this.#cached(key);
      const content = cached ?? (await this.#readOne(address, attachment, left, powers));
      left -= content.bytes;
      out.push(content);
      if (!cached && content.outcome !== "failed") {
        await this.options.redis
          .set(key, JSON.stringify(content), "EX", limits.cacheSeconds)
          .catch(() => {});
      }
      this.options.logger?.info?.("attachment read", {
        file: attachment.ref,
        outcome: content.outcome,
        type: content.type,
        bytes: content.bytes,
        cached: Boolean(cached),
      });
    }
    return out;
  }

  async #cached(key: string): Promise<AttachmentContent | undefined> {
    const raw = await this.options.redis.get(key).catch(() => null);
    if (raw === null) return undefined;
    try {
      const value = JSON.parse(raw) as AttachmentContent;
      return typeof value.ref === "string" && typeof value.outcome === "string" ? value : undefined;
    } catch {
      return undefined;
    }
  }

  async #readOne(
    address: ConversationAddress,
    attachment: Attachment,
    left: number,
    powers: ReadingPowers,
  ): Promise<AttachmentContent> {
    const kind = declaredKind(attachment);
    const { limits } = powers;
    if (kind === "video") {
      return namedOnly(attachment, kind, "named", "video is not read by this bot");
    }
    const [cap, capKey] = capOf(kind, limits);
    if (attachment.size !== undefined && attachment.size > cap) {
      return tooBig(attachment, kind, cap, capKey);
    }
    const turnCap = "attachments.max_turn_bytes, for all the files of one turn";
    if (left <= 0 || (attachment.size !== undefined && attachment.size > left)) {
      return tooBig(attachment, kind, limits.maxTurnBytes, turnCap);
    }
    const source = this.options.sources(address.platform);
    if (!source) {
      return namedOnly(
        attachment,
        kind,
        "failed",
        `this bot cannot fetch files from ${address.platform}`,
      );
    }
    let location: Awaited<ReturnType<FileSource["locate"]>>;
    try {
      location = await source.locate(attachment, powers.signal, address);
    } catch (error) {
      return namedOnly(
        attachment,
        kind,
        "failed",
        `it could not be fetched: ${(error as Error).message}`,
      );
    }
    const got = await download(location, {
      maxBytes: Math.min(cap, left),
      timeoutMs: limits.fetchMs,
      guard: this.#guardFor(),
      signal: powers.signal,
    });
    if (!got.ok) {
      if (got.tooBig) {
        return cap <= left
          ? tooBig(attachment, kind, cap, capKey, true)
          : tooBig(attachment, kind, limits.maxTurnBytes, turnCap, true);
      }
      return namedOnly(
        attachment,
        kind,
        "failed",
        `it could not be fetched: ${scrub(got.problem, location)}`,
      );
    }
    if (signInPage(got.contentType, attachment.mimeType)) {
      // Slack answers a download without a valid token (or without files:read) with its sign-in page and a 200.
      return namedOnly(
        attachment,
        kind,
        "failed",
        "the platform sent a web page instead of the file (on Slack: the app needs the files:read scope)",
      );
    }
    const type = await sniffType(got.bytes, attachment.mimeType, attachment.name);
    return readBytes(attachment, got.bytes, type, powers);
  }

  /**
   * The SSRF guard, built at the first download rather than with the reader:
   * it is an undici Agent, and loading undici at the worker's start cost some
   * 0.1 s and 10 MB that a bot nobody sends files to never needs (issue 36).
   */
  #guardFor(): Dispatcher {
    this.#guard ??= guardedAgent(PUBLIC_ONLY);
    return this.#guard;
  }
}

let shared: DocumentParsers | undefined;

/** One pool per process, whatever number of readers: its threads' heaps are what is bounded. */
function processParsers(): DocumentParsers {
  shared ??= new DocumentParsers();
  return shared;
}

/** An HTML answer for a file that was declared as something else: a login page, not the file. */
function signInPage(contentType: string | undefined, declared: string | undefined): boolean {
  if (!contentType?.toLowerCase().startsWith("text/html")) return false;
  return (
    declared !== undefined && !declared.startsWith("text/") && declared !== "application/xhtml+xml"
  );
}

/** A problem without any secret the location carries (the token in a Telegram file URL). */
function scrub(problem: string, location: Awaited<ReturnType<FileSource["locate"]>>): string {
  if (location.kind !== "url") return problem;
  return (location.secrets ?? []).reduce((text, secret) => text.split(secret).join("…"), problem);
}
