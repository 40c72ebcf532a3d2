/**
 * multipart/form-data as the platforms read it, for the fakes that take
 * uploads (Slack's upload URL, Telegram's sendPhoto/sendDocument, Discord's
 * message attachments). undici's `Response.formData()` does the parsing (a
 * dependency of the package, so the fakes need nothing a production install
 * lacks; Node 20's bundled fetch is older and refuses grammY's bodies). No
 * boundary, or a body cut short, rejects. File names keep their path.
 */
import { Response } from "undici";

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
 * body it cannot read (no boundary, cut short).
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
  if (!isMultipart(contentType) || !/boundary=/i.test(contentType ?? "")) {
    throw new Error(`not a multipart body: content-type ${JSON.stringify(contentType ?? "")}`);
  }
  let form: Awaited<ReturnType<Response["formData"]>>;
  try {
    form = await new Response(new Uint8Array(body), {
      headers: { "content-type": contentType as string },
    }).formData();
  } catch (error) {
    throw new Error(`unreadable multipart body: ${String(error)}`);
  }
  const fields: Record<string, string> = {};
  const files: FormFile[] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === "string") {
      fields[field] = value;
      continue;
    }
    files.push({
      field,
      filename: value.name,
      type: value.type || "application/octet-stream",
      bytes: Buffer.from(await value.arrayBuffer()),
    });
  }
  return { fields, files };
}
