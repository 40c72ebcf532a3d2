import type { WebClient } from "@slack/web-api";
import type { Attachment } from "../../core/conversation.ts";
import { type FileLocation, type FileSource, FileSourceError } from "../../ports/file-source.ts";

/** Slack serves files people share from these hosts, and only there does the bot token go. */
const SLACK_FILE_HOSTS = /(^|\.)slack\.com$|(^|\.)slack-edge\.com$|(^|\.)slack-gov\.com$/;

/**
 * Slack files by `url_private_download`, with the bot token as a bearer
 * (the app needs `files:read`). A file the event carried only by id (a
 * Slack Connect file, `file_access: check_file_info`) is looked up with
 * `files.info` first. The token is sent only to Slack's own file hosts or
 * the configured Web API's origin, never to any other URL.
 */
export class SlackFiles implements FileSource {
  constructor(
    private readonly client: WebClient,
    private readonly token: string,
    private readonly apiUrl: string | undefined,
  ) {}

  async locate(attachment: Attachment): Promise<FileLocation> {
    const url = attachment.url ?? (await this.#lookUp(attachment.ref));
    let host: URL;
    try {
      host = new URL(url);
    } catch {
      throw new FileSourceError("Slack gave no usable URL for it");
    }
    const ownApi = this.apiUrl !== undefined && new URL(this.apiUrl).origin === host.origin;
    if (!ownApi && (host.protocol !== "https:" || !SLACK_FILE_HOSTS.test(host.hostname))) {
      throw new FileSourceError(`its URL is not on a Slack file host (${host.hostname})`);
    }
    return {
      kind: "url",
      url,
      headers: { authorization: `Bearer ${this.token}` },
      platformHost: true,
      secrets: [this.token],
    };
  }

  async #lookUp(id: string): Promise<string> {
    try {
      const info = await this.client.files.info({ file: id });
      const url = info.file?.url_private_download ?? info.file?.url_private;
      if (url) return url;
    } catch (error) {
      const code = (error as { data?: { error?: string } }).data?.error ?? "no answer";
      throw new FileSourceError(
        code === "missing_scope"
          ? "the Slack app lacks the files:read scope (add it and reinstall the app)"
          : `Slack's files.info failed (${code})`,
      );
    }
    throw new FileSourceError(
      "Slack's files.info gave no download URL (hidden by the plan's limit?)",
    );
  }
}
