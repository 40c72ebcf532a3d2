import type { Attachment } from "../../core/conversation.ts";
import { type FileLocation, type FileSource, FileSourceError } from "../../ports/file-source.ts";

/**
 * Discord attachments by their CDN URL, as the message carried it (signed,
 * with its expiry; no token is needed or sent). The CDN is not the REST
 * API's host, so the fetcher sends it through the SSRF guard; only when the
 * URL is on the configured API's own origin (a proxy, a test's fake) is it
 * the platform's host.
 */
export class DiscordFiles implements FileSource {
  constructor(private readonly apiUrl: string | undefined) {}

  async locate(attachment: Attachment): Promise<FileLocation> {
    if (!attachment.url) throw new FileSourceError("Discord gave no URL for it");
    const origin = (url: string) => {
      try {
        return new URL(url).origin;
      } catch {
        return undefined;
      }
    };
    const platformHost =
      this.apiUrl !== undefined && origin(attachment.url) === origin(this.apiUrl);
    return { kind: "url", url: attachment.url, platformHost };
  }
}
