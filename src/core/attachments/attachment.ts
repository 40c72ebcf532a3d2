import type { Attachment } from "../conversation.ts";

/** The longest file name the queue carries; longer names are cut (the extension kept). */
export const ATTACHMENT_NAME_LIMIT = 200;
/** The longest download URL kept; a longer one is not a real platform URL. */
const URL_LIMIT = 4096;
/** A declared type as `type/subtype`, the only shape a declared mime type is kept in. */
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/;

/** What a platform says about one file, each field as untrusted as the payload it came in. */
export interface DeclaredFile {
  /** The platform's id for the file: what it is fetched and cached by. */
  readonly ref: unknown;
  readonly name?: unknown;
  readonly mimeType?: unknown;
  readonly size?: unknown;
  readonly url?: unknown;
  readonly voice?: unknown;
}

/**
 * One platform file as the channel-neutral {@link Attachment}, or undefined
 * when it has no id to fetch it by. Every other field is kept only in a
 * sane shape: a name without control characters and at most
 * {@link ATTACHMENT_NAME_LIMIT} long, a `type/subtype` mime type (lower
 * case, parameters dropped), a whole non-negative size, an http(s) URL.
 * Nothing here throws, whatever the payload held.
 */
export function declaredAttachment(
  file: DeclaredFile,
  fallbackName: string,
): Attachment | undefined {
  const ref = typeof file.ref === "string" ? file.ref.slice(0, 512) : undefined;
  if (!ref) return undefined;
  const mimeType = declaredMime(file.mimeType);
  const size = declaredSize(file.size);
  const url = declaredUrl(file.url);
  return {
    ref,
    name: fileName(file.name, fallbackName),
    ...(mimeType ? { mimeType } : {}),
    ...(size !== undefined ? { size } : {}),
    ...(url ? { url } : {}),
    ...(file.voice === true ? { voice: true } : {}),
  };
}

function fileName(name: unknown, fallback: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const clean = (typeof name === "string" ? name : "").replace(/[\u0000-\u001f\u007f]/g, "").trim();
  const chosen = clean === "" ? fallback : clean;
  if (chosen.length <= ATTACHMENT_NAME_LIMIT) return chosen;
  const dot = chosen.lastIndexOf(".");
  const ext = dot > 0 && chosen.length - dot <= 10 ? chosen.slice(dot) : "";
  return `${chosen.slice(0, ATTACHMENT_NAME_LIMIT - ext.length - 1)}…${ext}`;
}

function declaredMime(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const bare = value.split(";")[0]?.trim().toLowerCase() ?? "";
  return MIME.test(bare) ? bare : undefined;
}

function declaredSize(value: unknown): number | undefined {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) return undefined;
  return value;
}

function declaredUrl(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > URL_LIMIT) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
