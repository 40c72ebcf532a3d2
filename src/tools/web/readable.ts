import { createRequire } from "node:module";
import type * as NodeHtmlMarkdownModule from "node-html-markdown";
import type { NodeHtmlMarkdown } from "node-html-markdown";

/**
 * Turning a downloaded page into text a model reads well: HTML becomes
 * markdown (headings, links and lists survive, scripts and menus do not),
 * JSON is pretty-printed, plain text passes through. Anything else (images,
 * PDFs, archives) is not text, and is refused before it is downloaded.
 */

/** How a page is read; `sniff` means the server did not say, so the bytes decide. */
export type PageKind = "html" | "json" | "text" | "sniff";

export interface MediaType {
  /** `type/subtype`, lowercase, e.g. `text/html`; empty when the header is absent. */
  readonly essence: string;
  readonly charset?: string;
}

export interface ReadablePage {
  /** The HTML `<title>`, when there is one. */
  readonly title?: string;
  readonly text: string;
}

/**
 * Elements that are not the page's content: the title (read apart), code,
 * styling, menus, frames.
 */
const DROPPED = [
  "title",
  "script",
  "style",
  "noscript",
  "template",
  "nav",
  "svg",
  "iframe",
  "canvas",
];
let converter: NodeHtmlMarkdown | undefined;

/**
 * The HTML converter, built at the first page rather than with the package
 * (node-html-markdown and its parser take some 40 ms to load; issue 29).
 * CommonJS, so required where it is first needed.
 */
function markdown(): NodeHtmlMarkdown {
  if (converter === undefined) {
    const { NodeHtmlMarkdown } = createRequire(import.meta.url)(
      "node-html-markdown",
    ) as typeof NodeHtmlMarkdownModule;
    converter = new NodeHtmlMarkdown({ ignore: DROPPED, maxConsecutiveNewlines: 2 });
  }
  return converter;
}

const TEXT_TYPES: ReadonlySet<string> = new Set([
  "application/xml",
  "application/javascript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
]);

/**
 * Reads a `Content-Type` header: `Text/HTML; charset="ISO-8859-1"` ->
 * `{ essence: "text/html", charset: "iso-8859-1" }`. Never throws; a header
 * that makes no sense reads as its first token.
 */
export function parseMediaType(header: string | null): MediaType {
  if (header === null) return { essence: "" };
  const [head = "", ...params] = header.split(";");
  const essence = head.trim().toLowerCase();
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    const value = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
    if (value !== "") return { essence, charset: value };
  }
  return { essence };
}

/** How to read a media type, or `undefined` when it is not text (then the page is refused unread). */
export function pageKind(type: MediaType): PageKind | undefined {
  const { essence } = type;
  if (essence === "") return "sniff";
  if (essence === "text/html" || essence === "application/xhtml+xml") return "html";
  if (essence === "application/json" || essence.endsWith("+json")) return "json";
  if (essence.startsWith("text/") || essence.endsWith("+xml") || TEXT_TYPES.has(essence)) {
    return "text";
  }
  return undefined;
}

/**
 * The page as text. `bytes` may be cut mid-character or mid-tag (a truncated
 * download): every step tolerates that. Returns `undefined` for a `sniff` page
 * whose bytes are binary.
 */
export function readablePage(
  bytes: Uint8Array,
  type: MediaType,
  kind: PageKind,
): ReadablePage | undefined {
  const resolved = kind === "sniff" ? sniff(bytes) : kind;
  if (resolved === undefined) return undefined;
  const text = decode(
    bytes,
    type.charset ?? (resolved === "html" ? metaCharset(bytes) : undefined),
  );
  switch (resolved) {
    case "html":
      return htmlPage(text);
    case "json":
      return { text: prettyJson(text) };
    default:
      return { text: text.trim() };
  }
}

/**
 * Tags node-html-markdown reads badly. It drops everything inside `<head>`,
 * so a page that never closes it (browsers cope) would lose its body; without
 * the head tags its children stand alone (title, scripts and styles are
 * dropped, meta has no text). A doctype or XML declaration after leading
 * whitespace would come out as text.
 */
const PREAMBLE = /<\/?head\b[^>]*>|<!doctype[^>]*>|<\?xml[^>]*>/gi;

function htmlPage(html: string): ReadablePage {
  const rawTitle = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const title = rawTitle === undefined ? "" : markdown().translate(rawTitle).replace(/\s+/g, " ");
  const text = markdown().translate(html.replace(PREAMBLE, "")).trim();
  return title.trim() === "" ? { text } : { title: title.trim(), text };
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Cut short or not JSON after all: the raw text still says something.
    return text.trim();
  }
}

/** An unknown charset label falls back to UTF-8 rather than failing the page. */
function decode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** `<meta charset="...">` or the http-equiv form, from the head of the document. */
function metaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 2_048));
  return /<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)/i.exec(head)?.[1];
}

/** No type given: binary if the start holds NUL bytes, HTML if it opens like HTML, else text. */
function sniff(bytes: Uint8Array): "html" | "text" | undefined {
  const start = bytes.subarray(0, 1_024);
  if (start.includes(0)) return undefined;
  const opening = new TextDecoder("utf-8").decode(start).trimStart().slice(0, 64).toLowerCase();
  return opening.startsWith("<!doctype html") || opening.startsWith("<html") ? "html" : "text";
}
