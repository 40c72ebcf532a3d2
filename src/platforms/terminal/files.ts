import { open, realpath, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, isAbsolute, relative, resolve } from "node:path";
import type { Attachment } from "../../core/conversation.ts";
import { type FileLocation, type FileSource, FileSourceError } from "../../ports/file-source.ts";

/**
 * The console's files: `/attach <path>` names a local file, and the worker
 * reads it from its own disk (the console is for trying the bot on one
 * machine). Only regular files under the working directory or the temp
 * directory are read, so a message naming `/etc/shadow` reads nothing.
 */
export class LocalFiles implements FileSource {
  constructor(private readonly roots: () => readonly string[] = () => [process.cwd(), tmpdir()]) {}

  async locate(attachment: Attachment): Promise<FileLocation> {
    const path = await this.#allowed(attachment.ref);
    const limit = (attachment.size ?? 0) + 1;
    const handle = await open(path, "r");
    try {
      // At most the size it had when attached (and one byte more, to see it grew): the caps were checked on that.
      const buffer = Buffer.alloc(limit);
      const { bytesRead } = await handle.read(buffer, 0, limit, 0);
      return { kind: "bytes", bytes: new Uint8Array(buffer.subarray(0, bytesRead)) };
    } finally {
      await handle.close();
    }
  }

  async #allowed(ref: string): Promise<string> {
    const real = await realpath(ref).catch(() => {
      throw new FileSourceError(`there is no file at ${ref}`);
    });
    const roots = await Promise.all(this.roots().map((root) => realpath(root).catch(() => root)));
    const inside = roots.some((root) => {
      const rel = relative(root, real);
      return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
    });
    if (!inside) {
      throw new FileSourceError(
        `the console reads files under the working directory or ${tmpdir()} only, not ${ref}`,
      );
    }
    if (!(await stat(real)).isFile()) throw new FileSourceError(`${ref} is not a regular file`);
    return real;
  }
}

/** `/attach <path> [text]`: the file as an attachment, and the rest of the line as the message. */
export async function consoleAttachment(
  line: string,
): Promise<{ attachment?: Attachment; text: string; problem?: string }> {
  const rest = line.replace(/^\/attach\b/, "").trim();
  const [path = "", ...words] = rest.split(/\s+/);
  if (path === "") return { text: "", problem: "Usage: /attach <path> [message]" };
  const absolute = resolve(path);
  const info = await stat(absolute).catch(() => undefined);
  if (!info?.isFile()) return { text: "", problem: `There is no file at ${absolute}.` };
  return {
    attachment: { ref: absolute, name: basename(absolute), size: info.size },
    text: words.join(" "),
  };
}
