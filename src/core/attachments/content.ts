import { untrustedText } from "../agent/untrusted-text.ts";
import type { Attachment } from "../conversation.ts";

/** What a file is taken as, from its sniffed type (the declared one only when the bytes say nothing). */
export type AttachmentKind = "image" | "audio" | "document" | "video" | "file";

/**
 * One attachment as the model gets it: an image part, text (a document's,
 * or a transcript), or only a note naming it and saying why. Plain data:
 * cached, recorded in the checkpoint and rendered the same on every worker.
 */
export interface AttachmentContent {
  readonly ref: string;
  readonly name: string;
  readonly kind: AttachmentKind;
  /** The sniffed type, or the declared one when the bytes were not fetched. */
  readonly type?: string;
  /** Bytes downloaded (0 when refused before downloading). */
  readonly bytes: number;
  readonly outcome: "image" | "text" | "transcript" | "named" | "refused" | "failed";
  /** A base64 data URL of the (downscaled) image, for `image_url`. */
  readonly image?: { readonly url: string; readonly width: number; readonly height: number };
  /** A document's text, or a transcript. */
  readonly text?: string;
  /** What the model is told about the file besides (truncated, too big, not supported here). */
  readonly note?: string;
}

export type ContentPart =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "image_url";
      readonly image_url: { readonly url: string; readonly detail?: "low" | "high" | "auto" };
    };

/** A byte count as people read it: 1.2 MB, 340 KB, 12 bytes. */
export function shownSize(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${Math.round(bytes / 1_000)} KB`;
  return `${bytes} bytes`;
}

/** The label a file carries in the message: `[image: chart.png]`, `[voice note transcript: …]`. */
function header(content: AttachmentContent): string {
  const facts = [content.type, content.bytes > 0 ? shownSize(content.bytes) : undefined].filter(
    Boolean,
  );
  return facts.length > 0 ? `${content.name} (${facts.join(", ")})` : content.name;
}

/**
 * One attachment as text lines, in the fixed order header, body, note. The
 * body (a document's text, a transcript) is untrusted text: it comes as its
 * own delimited block, after the person's words, never as part of them.
 */
function describe(content: AttachmentContent): string {
  const lines: string[] = [];
  switch (content.outcome) {
    case "image":
      lines.push(`[image: ${header(content)}]`);
      break;
    case "transcript":
      lines.push(
        `[voice note: ${header(content)}, transcript follows]`,
        untrustedText(`transcript of ${content.name}`, content.text ?? ""),
      );
      break;
    case "text":
      lines.push(
        `[file: ${header(content)}, its text follows]`,
        untrustedText(`file ${content.name}`, content.text ?? ""),
      );
      break;
    default:
      lines.push(`[file: ${header(content)}]`);
  }
  if (content.note) lines.push(`(${content.note})`);
  return lines.join("\n");
}

/**
 * The person's text with their files, as a user message's content: a plain
 * string when no image is in it (what every server takes), else text parts
 * and `image_url` parts, each file where it was sent. The order is the
 * attachments' order, so the same message always makes the same bytes.
 */
export function userContent(
  text: string,
  contents: readonly AttachmentContent[],
): string | ContentPart[] {
  const blocks = [text, ...contents.map(describe)].filter((block) => block !== "");
  if (!contents.some((c) => c.image)) return blocks.join("\n\n");
  const parts: ContentPart[] = [];
  if (text !== "") parts.push({ type: "text", text });
  for (const content of contents) {
    parts.push({ type: "text", text: describe(content) });
    if (content.image) parts.push({ type: "image_url", image_url: { url: content.image.url } });
  }
  return parts;
}

/** The content of a file that was never fetched: named, with the declared facts and why. */
export function namedOnly(
  attachment: Attachment,
  kind: AttachmentKind,
  outcome: "named" | "refused" | "failed",
  note: string,
): AttachmentContent {
  return {
    ref: attachment.ref,
    name: attachment.name,
    kind,
    ...(attachment.mimeType ? { type: attachment.mimeType } : {}),
    bytes: attachment.size ?? 0,
    outcome,
    note,
  };
}
