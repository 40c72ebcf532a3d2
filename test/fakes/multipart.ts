/**
 * multipart/form-data as the platforms read it, for the fakes that take
 * uploads (Slack's upload URL, Telegram's sendPhoto/sendDocument, Discord's
 * message attachments). busboy does the parsing. It is strict about the
 * disposition header: a part a client names badly (grammY's unquoted file
 * name with a space) is dropped, as a strict server would drop it, which is
 * why the Telegram upload quotes its names. File names keep their path.
 */
import busboy from "busboy";

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

/**
 * Parses a whole multipart/form-data body. Rejects, naming the problem, on a
 * body busboy cannot read (no boundary, cut short).
 *
 * @example
 * const form = await parseMultipart(req.headers["content-type"], await readBytes(req));
 * form.fields.chat_id; // "42"
 * form.files[0]?.bytes; // the uploaded bytes
 */
export function parseMultipart(contentType: string | undefined, body: Buffer): Promise<FormData> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: FormFile[] = [];
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { "content-type": contentType ?? "" },
        defParamCharset: "utf8",
        preservePath: true,
        limits: { fieldSize: 16 * 1024 * 1024 },
      });
    } catch (error) {
      return reject(new Error(`not a multipart body: ${String(error)}`));
    }
    parser.on("field", (name, value) => {
      fields[name] = value;
    });
    parser.on("file", (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () =>
        files.push({
          field,
          filename: info.filename ?? "",
          type: info.mimeType || "application/octet-stream",
          bytes: Buffer.concat(chunks),
        }),
      );
    });
    parser.on("close", () => resolve({ fields, files }));
    parser.on("error", (error) => reject(new Error(`unreadable multipart body: ${String(error)}`)));
    parser.end(body);
  });
}
