/**
 * multipart/form-data as the platforms read it, for the fakes that take
 * uploads (Slack's upload URL, Telegram's sendPhoto/sendDocument, Discord's
 * message attachments). File names keep their path.
 *
 * Parsed here rather than by a library, and why: busboy is a dev-only
 * dependency, which the kit (`switchyard/testing`) must not import; undici's
 * `Response.formData()` would do, but importing undici 7 beside discord.js
 * (which brings undici 6) in one process makes discord.js's own uploads go
 * astray; and Node 20's bundled fetch refuses grammY's bodies. The format is
 * small: parts between boundary lines, each with its headers.
 */

/** One file part: its field name, the file name the client gave, and the bytes. */
export interface FormFile {
  readonly field: string;
  readonly filename: string;
  /** The part's content-type, `application/octet-stream` when the client set none. */
  readonly type: string;
  readonly bytes: Buffer;
}

export interface FormData {
  /** Text parts by name (the last one wins, as the platforms read them). */
  readonly fields: Record<string, string>;
  readonly files: readonly FormFile[];
}

/** Whether a request's content-type says multipart/form-data. */
export function isMultipart(contentType: string | undefined): boolean {
  return /^multipart\/form-data\s*;/i.test(contentType ?? "");
}

const CRLF = Buffer.from("\r\n");
const HEADERS_END = Buffer.from("\r\n\r\n");

/**
 * Parses a whole multipart/form-data body. Rejects, naming the problem, on a
 * body it cannot read (no boundary, cut short, a part without a name).
 *
 * @example
 * const form = await parseMultipart(req.headers["content-type"], await readBytes(req));
 * form.fields.chat_id; // "42"
 * form.files[0]?.bytes; // the uploaded bytes
 */
export async function parseMultipart(
  contentType: string | undefined,
  body: Buffer,
): Promise<FormData> {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "");
  if (!isMultipart(contentType) || !boundary) {
    throw new Error(`not a multipart body: content-type ${JSON.stringify(contentType ?? "")}`);
  }
  const delimiter = Buffer.from(`\r\n--${boundary[1] ?? boundary[2]}`);
  // The first boundary line has no CRLF before it: lend it one.
  const text = Buffer.concat([CRLF, body]);
  // No prototype: a part may be named `__proto__` (anyone can send one), and it is a field like any other.
  const fields: Record<string, string> = Object.create(null);
  const files: FormFile[] = [];
  let at = text.indexOf(delimiter);
  if (at < 0) throw new Error("unreadable multipart body: no boundary line");
  for (;;) {
    const after = at + delimiter.length;
    if (text.subarray(after, after + 2).toString() === "--") break;
    const next = text.indexOf(delimiter, after);
    if (next < 0) throw new Error("unreadable multipart body: cut short before its last boundary");
    const part = text.subarray(text.indexOf(CRLF, after) + CRLF.length, next);
    const split = part.indexOf(HEADERS_END);
    const head = (split < 0 ? part : part.subarray(0, split)).toString("utf8");
    const content = split < 0 ? Buffer.alloc(0) : part.subarray(split + HEADERS_END.length);
    const disposition = headerOf(head, "content-disposition");
    const name = paramOf(disposition, "name");
    if (name === undefined) {
      throw new Error(`unreadable multipart body: a part without a name (${JSON.stringify(head)})`);
    }
    const filename = paramOf(disposition, "filename");
    if (filename === undefined) fields[name] = content.toString("utf8");
    else {
      files.push({
        field: name,
        filename,
        type: headerOf(head, "content-type") || "application/octet-stream",
        bytes: Buffer.from(content),
      });
    }
    at = next;
  }
  return { fields, files };
}

function headerOf(head: string, name: string): string {
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) {
      return line.slice(colon + 1).trim();
    }
  }
  return "";
}

/** A parameter of a header value: quoted (backslash escapes), bare, or RFC 5987 (`filename*=utf-8''…`). */
function paramOf(value: string, name: string): string | undefined {
  const extended = new RegExp(`;\\s*${name}\\*=([^']*)'[^']*'([^;]*)`, "i").exec(value);
  if (extended) return decodeURIComponent(extended[2] ?? "");
  const quoted = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"`, "i").exec(value);
  if (quoted) return (quoted[1] ?? "").replace(/\\(.)/g, "$1");
  const bare = new RegExp(`;\\s*${name}=([^;\\s]*)`, "i").exec(value);
  return bare ? bare[1] : undefined;
}
