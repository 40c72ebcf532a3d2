import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { shownSize } from "../../core/attachments/content.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import { typedApproval } from "../../ingress/commands/approve.ts";
import { parseApprovalPayload } from "../../ports/approvals.ts";
import type {
  DeliveryTarget,
  MessageControl,
  OutgoingFile,
  PostOptions,
} from "../../ports/outbound.ts";
import type { Outbox, OutboxEntry } from "../../ports/outbox.ts";
import { KeyScheme } from "../../store/keys.ts";
import { LuaScript } from "../../store/lua.ts";
import { LocalFiles } from "./files.ts";

/**
 * The console channel's outbound: answers go into a Redis stream that the
 * console process reads, so workers in other processes (or on other
 * machines) can answer a terminal too. Posting is exactly once per
 * idempotency key: the key and the stream entry are written by one script.
 * A file is written into a folder of the worker's disk (the console runs
 * where its workers do) and its entry says where.
 */
const POST = LuaScript.file("outbox-post-2");

/** Where the console's files go unless told otherwise: a folder of the OS's temporary directory. */
export const DEFAULT_FILES_DIR = join(tmpdir(), "switchyard-files");

export type { OutboxEntry };

export class RedisOutbox implements Outbox {
  readonly maxLength = 40_000;
  readonly canEdit = false;
  readonly stream: string;
  readonly #sentKey: (idempotencyKey: string) => string;
  /** `/attach <path>` files, read from the worker's disk. */
  readonly files = new LocalFiles();

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly conversationOf: (target: ConversationAddress) => string,
    /** Where files the answers carry are written. */
    readonly filesDir: string = DEFAULT_FILES_DIR,
  ) {
    const keys = new KeyScheme(prefix).outbox();
    this.stream = keys.stream;
    this.#sentKey = keys.sent;
  }

  /**
   * Adds the answer, once per key. The terminal has no buttons: a post's
   * controls (an approval request's) are printed under it as the commands
   * to type instead (see {@link typedControls}).
   */
  post(target: DeliveryTarget, text: string, { idempotencyKey, controls = [] }: PostOptions) {
    const typed = typedControls(controls);
    const shown = typed === "" ? text : `${text}\n${typed}`;
    return this.#add(target, shown, idempotencyKey, "post", "", typed !== "");
  }

  /**
   * Writes the file into {@link filesDir} (its name made safe for a path,
   * prefixed by the key so two answers' files never clash) and adds a
   * "[file: name, type, size → path]" entry, once per key.
   */
  async upload(
    target: DeliveryTarget,
    file: OutgoingFile,
    { idempotencyKey }: { idempotencyKey: string },
  ): Promise<string> {
    await mkdir(this.filesDir, { recursive: true });
    const path = join(this.filesDir, `${safeName(idempotencyKey)}-${safeName(file.name)}`);
    await writeFile(path, file.bytes);
    const text = `[file: ${file.name}, ${file.type}, ${shownSize(file.bytes.byteLength)} → ${path}]`;
    return this.#add(target, text, idempotencyKey, "file", path);
  }

  async #add(
    target: DeliveryTarget,
    text: string,
    key: string,
    kind: string,
    path: string,
    controls = false,
  ) {
    const id = await POST.run(
      this.redis,
      [this.#sentKey(key), this.stream],
      [
        this.conversationOf(target),
        text,
        100_000,
        24 * 60 * 60 * 1000,
        key,
        kind,
        path,
        controls ? "1" : "",
      ],
    );
    return String(id);
  }

  async edit(target: DeliveryTarget, ref: string, text: string): Promise<void> {
    await this.redis.xadd(
      this.stream,
      "MAXLEN",
      "~",
      "100000",
      "*",
      "kind",
      "edit",
      "conversation",
      this.conversationOf(target),
      "text",
      text,
      "ref",
      ref,
    );
  }

  async typing(): Promise<void> {}

  /** Reads entries after `since` ("0" for all), waiting up to `blockMs` for new ones. */
  async read(since: string, blockMs: number, redis: Redis = this.redis): Promise<OutboxEntry[]> {
    const result = (await redis.xread(
      "COUNT",
      1000,
      "BLOCK",
      blockMs,
      "STREAMS",
      this.stream,
      since,
    )) as [string, [string, string[]][]][] | null;
    if (!result) return [];
    const entries: OutboxEntry[] = [];
    for (const [, items] of result) {
      for (const [id, fields] of items) {
        const map: Record<string, string> = {};
        for (let i = 0; i + 1 < fields.length; i += 2)
          map[fields[i] as string] = fields[i + 1] as string;
        entries.push({
          id,
          kind: map.kind === "edit" || map.kind === "file" ? map.kind : "post",
          conversation: map.conversation ?? "",
          text: map.text ?? "",
          ...(map.ref ? { ref: map.ref } : {}),
          ...(map.key ? { key: map.key } : {}),
          ...(map.path ? { path: map.path } : {}),
          ...(map.controls === "1" ? { controls: true as const } : {}),
        });
      }
    }
    return entries;
  }
}

/** A name that is one path segment: no folders, no dots in front, nothing a shell trips on. */
function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
  return cleaned.slice(-120) || "file";
}

/**
 * A post's controls as the commands to type, one line:
 * `Type /approve k3j9x0a1b2c4 (Approve), /approve k3j9x0a1b2c4 conversation
 * (Approve for this conversation) or /deny k3j9x0a1b2c4 (Deny).` A control
 * with no typed form ("show the full arguments") is left out.
 */
export function typedControls(controls: readonly MessageControl[]): string {
  const typed = controls.flatMap((control) => {
    const parsed = parseApprovalPayload(control.payload);
    const command = parsed && typedApproval(parsed.id, parsed.control);
    return command ? [`${command} (${control.label})`] : [];
  });
  if (typed.length === 0) return "";
  const last = typed.pop() as string;
  return `Type ${typed.length === 0 ? last : `${typed.join(", ")} or ${last}`}.`;
}
