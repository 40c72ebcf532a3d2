/**
 * File uploads in the fake Slack Web API (slack-api.ts), the three steps of
 * the WebClient's `filesUploadV2` as Slack runs them:
 * files.getUploadURLExternal hands out an upload URL and a file id for a
 * name and a length; the bytes are POSTed to that URL (raw, or multipart
 * as the WebClient sends them, field `body`), answered `OK - <length>`;
 * files.completeUploadExternal turns each uploaded id into a file and,
 * with `channel_id` (and `thread_ts`), shares it: a message from the bot
 * with a `files` array, as conversations.replies and history list it.
 * The bytes are kept, served at the file's `url_private_download`.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readBytes } from "./local-server.ts";
import { isMultipart, parseMultipart } from "./multipart.ts";
import type {
  FakeSlackFile,
  FakeSlackIdentity,
  FakeSlackMessage,
  FakeSlackWorkspace,
  SlackArgs,
  SlackResult,
} from "./slack-workspace.ts";

/** An upload URL handed out and not completed yet. */
interface PendingUpload {
  filename: string;
  length: number;
  bytes?: Buffer;
}

const MIME_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json",
};

const fail = (error: string): SlackResult => ({ ok: false, error });

/** A stored file as Slack describes it, its bytes served at `url_private_download`. */
export function storedFile(
  identity: FakeSlackIdentity,
  origin: string,
  file: { id?: string; name: string; mimetype?: string; content: Buffer; user?: string },
): FakeSlackFile {
  const id = file.id ?? `F${randomBytes(5).toString("hex").toUpperCase()}`;
  const url = `${origin}/files-pri/${identity.teamId}-${id}`;
  const extension = file.name.includes(".") ? (file.name.split(".").pop() ?? "") : "";
  return {
    id,
    name: file.name,
    title: file.name,
    mimetype: file.mimetype ?? MIME_TYPES[extension.toLowerCase()] ?? "application/octet-stream",
    filetype: extension || "binary",
    size: file.content.length,
    user: file.user ?? identity.botUserId,
    created: Math.floor(Date.now() / 1000),
    url_private: `${url}/${encodeURIComponent(file.name)}`,
    url_private_download: `${url}/download/${encodeURIComponent(file.name)}`,
    content: file.content,
  };
}

export class FakeSlackUploads {
  readonly #pending = new Map<string, PendingUpload>();

  constructor(
    private readonly workspace: FakeSlackWorkspace,
    private readonly origin: () => string,
  ) {}

  /** Answers files.getUploadURLExternal and files.completeUploadExternal; undefined for other methods. */
  call(method: string, args: SlackArgs): SlackResult | undefined {
    if (method === "files.getUploadURLExternal") return this.#uploadUrl(args);
    if (method === "files.completeUploadExternal") return this.#complete(args);
    return undefined;
  }

  /** The POST of the bytes to an upload URL: 200 `OK - <length>`, 404 for a URL never handed out. */
  async receive(id: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pending = this.#pending.get(id);
    const raw = await readBytes(req);
    if (!pending) return void res.writeHead(404).end("upload URL not found");
    const contentType = req.headers["content-type"];
    const bytes = isMultipart(contentType)
      ? (await parseMultipart(contentType, raw)).files[0]?.bytes
      : raw;
    if (!bytes) return void res.writeHead(400).end("no file in the upload");
    pending.bytes = bytes;
    res.writeHead(200, { "content-type": "text/plain" }).end(`OK - ${bytes.length}`);
  }

  #uploadUrl(args: SlackArgs): SlackResult {
    const length = Number(args.length);
    if (!args.filename || !Number.isInteger(length) || length <= 0) {
      return fail("invalid_arguments");
    }
    const id = `F${randomBytes(5).toString("hex").toUpperCase()}`;
    this.#pending.set(id, { filename: String(args.filename), length });
    return { ok: true, upload_url: `${this.origin()}/upload/v1/${id}`, file_id: id };
  }

  #complete(args: SlackArgs): SlackResult {
    const listed = typeof args.files === "string" ? safeJson(args.files) : args.files;
    if (!Array.isArray(listed) || listed.length === 0) return fail("invalid_arguments");
    const channel = args.channel_id ? String(args.channel_id) : undefined;
    const declared = channel ? this.workspace.channels.get(channel) : undefined;
    if (declared && !declared.members.includes(this.workspace.identity.botUserId)) {
      return fail("not_in_channel");
    }
    const uploads: [string, PendingUpload, string | undefined][] = [];
    for (const entry of listed as { id?: string; title?: string }[]) {
      const pending = this.#pending.get(String(entry.id));
      // Slack answers a file whose bytes never arrived, or were not the announced length, so.
      if (!pending?.bytes || pending.bytes.length !== pending.length) return fail("file_not_found");
      uploads.push([String(entry.id), pending, entry.title]);
    }
    const files = uploads.map(([id, pending, title]) => {
      this.#pending.delete(id);
      const file = storedFile(this.workspace.identity, this.origin(), {
        id,
        name: pending.filename,
        content: pending.bytes as Buffer,
      });
      if (title) file.title = title;
      this.workspace.files.set(id, file);
      return file;
    });
    const message = channel ? this.#share(channel, args.thread_ts, files) : undefined;
    return { ok: true, files: files.map((f) => fileWire(f, channel, message)) };
  }

  /** The bot's message that shows the files in the channel (and thread). */
  #share(channel: string, thread: unknown, files: FakeSlackFile[]): FakeSlackMessage {
    const { identity } = this.workspace;
    const threadTs = thread ? String(thread) : undefined;
    const parent = threadTs ? this.workspace.find(channel, threadTs) : undefined;
    const message: FakeSlackMessage = {
      channel,
      type: "message",
      ts: this.workspace.nextTs(),
      text: "",
      user: identity.botUserId,
      team: identity.teamId,
      bot_id: identity.botId,
      app_id: identity.appId,
      upload: false,
      display_as_bot: false,
      files: files.map((f) => fileWire(f, undefined, undefined)),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(parent ? { parent_user_id: parent.user } : {}),
    };
    this.workspace.messages.push(message);
    return message;
  }
}

/** A file as Slack sends it: without the fake's bytes, with where it is shared. */
function fileWire(
  file: FakeSlackFile,
  channel: string | undefined,
  message: FakeSlackMessage | undefined,
): SlackResult {
  const { content: _content, ...onWire } = file;
  const share = message
    ? [{ ts: message.ts, ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}) }]
    : undefined;
  return {
    ...onWire,
    timestamp: file.created,
    mode: "hosted",
    is_external: false,
    is_public: channel?.startsWith("C") ?? false,
    public_url_shared: false,
    display_as_bot: false,
    ...(channel && share
      ? {
          channels: channel.startsWith("C") ? [channel] : [],
          shares: { [channel.startsWith("C") ? "public" : "private"]: { [channel]: share } },
        }
      : {}),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
