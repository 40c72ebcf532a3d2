import type { Attachment } from "../conversation.ts";
import type { AttachmentKind } from "./content.ts";

/** Images the model can see (gif: its first frame). */
export const VISION_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);

/** A Word document (Office Open XML); read as text with `mammoth`. */
export const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

const TEXT_EXTENSIONS = new Set(
  "txt md markdown csv tsv json yaml yml toml ini log xml html htm js mjs cjs ts tsx jsx py rb go rs java kt c h cc cpp hpp cs php sh bash zsh sql swift scala lua r pl css scss".split(
    " ",
  ),
);

/** Types that are text whatever their top level says. */
const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/javascript",
  "application/typescript",
  "application/x-sh",
  "application/sql",
  "application/xhtml+xml",
]);

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** Whether a file of this type and name is read as text. */
export function isTextLike(type: string | undefined, name: string): boolean {
  if (type?.startsWith("text/") || (type && TEXT_TYPES.has(type))) return true;
  return TEXT_EXTENSIONS.has(extensionOf(name));
}

/** What a type says a file is; the voice flag makes audio of anything the platform marks a voice note. */
export function kindOf(type: string | undefined, name: string, voice = false): AttachmentKind {
  if (voice) return "audio";
  const top = type?.split("/")[0];
  if (top === "image") return "image";
  if (top === "audio") return "audio";
  if (top === "video") return "video";
  if (type === "application/pdf" || type === DOCX_TYPE || isTextLike(type, name)) return "document";
  const ext = extensionOf(name);
  if (["png", "jpg", "jpeg", "webp", "gif"].includes(ext)) return "image";
  if (["ogg", "oga", "opus", "mp3", "m4a", "wav", "webm", "flac"].includes(ext)) return "audio";
  if (ext === "pdf" || ext === "docx") return "document";
  return "file";
}

/** The kind a platform's declaration suggests, before any byte is fetched (it picks the size cap). */
export function declaredKind(attachment: Attachment): AttachmentKind {
  return kindOf(attachment.mimeType, attachment.name, attachment.voice);
}

const TEXT_TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  html: "text/html",
  htm: "text/html",
  xml: "application/xml",
};

/** The text type a file name suggests (`notes.md` -> text/markdown); text/plain when it says nothing. */
export function textTypeFor(name: string): string {
  return TEXT_TYPE_BY_EXTENSION[extensionOf(name)] ?? "text/plain";
}
