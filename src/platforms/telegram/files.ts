import type { Api } from "grammy";
import type { Attachment } from "../../core/conversation.ts";
import { type FileLocation, type FileSource, FileSourceError } from "../../ports/file-source.ts";
import { redactToken } from "./api.ts";

/** Where the cloud Bot API serves files; a local Bot API server (`apiRoot`) serves its own. */
const CLOUD_ROOT = "https://api.telegram.org";

/**
 * Telegram files by `file_id`: `getFile` gives the file's path, and the bytes
 * are at `<apiRoot>/file/bot<token>/<file_path>` (the cloud Bot API serves
 * at most 20 MB; a local Bot API server serves larger files). The URL holds
 * the token, so it is marked a secret: it never reaches a log or a note.
 */
export class TelegramFiles implements FileSource {
  constructor(
    private readonly api: () => Api,
    private readonly token: string,
    private readonly root: () => string | undefined,
  ) {}

  async locate(attachment: Attachment, signal: AbortSignal): Promise<FileLocation> {
    let path: string | undefined;
    try {
      // grammY types its signal with a polyfill's AbortSignal; the runtime one is what it uses.
      path = (await this.api().getFile(attachment.ref, signal as never)).file_path;
    } catch (error) {
      const said = redactToken((error as Error).message ?? "", this.token);
      throw new FileSourceError(
        /file is too big/i.test(said)
          ? "Telegram hands bots files of at most 20 MB (a local Bot API server serves larger ones)"
          : `Telegram's getFile failed (${said.slice(0, 160)})`,
      );
    }
    if (!path) throw new FileSourceError("Telegram's getFile gave no file_path for it");
    const root = (this.root() ?? CLOUD_ROOT).replace(/\/+$/, "");
    const encoded = path.split("/").map(encodeURIComponent).join("/");
    return {
      kind: "url",
      url: `${root}/file/bot${this.token}/${encoded}`,
      platformHost: true,
      secrets: [this.token],
    };
  }
}
