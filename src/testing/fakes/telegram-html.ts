/**
 * Telegram's `parse_mode: "HTML"`, as the fake Bot API reads it: text and
 * entities out, or the 400 Telegram answers ("can't parse entities: …").
 *
 * It follows the Bot API's formatting rules (the supported tags, the four
 * named entities, numeric entities, offsets in UTF-16 code units, the text
 * trimmed) and is stricter than Telegram in two places, so a test catches
 * what Telegram would quietly mangle: a `&` that starts no entity is refused
 * instead of shown, and entities nested against the rules ("bold … can
 * contain any other entities, except pre and code"; "blockquote … can't be
 * nested"; links, code and pre contain none of each other) are refused
 * instead of dropped.
 */

export interface TelegramEntity {
  type:
    | "bold"
    | "italic"
    | "underline"
    | "strikethrough"
    | "spoiler"
    | "text_link"
    | "code"
    | "pre"
    | "blockquote"
    | "expandable_blockquote"
    | "custom_emoji";
  offset: number;
  length: number;
  url?: string;
  language?: string;
}

export interface ParsedHtml {
  text: string;
  entities: TelegramEntity[];
}

/** What Telegram answers for markup it cannot read; `message` is its `description`. */
export class TelegramHtmlError extends Error {
  override readonly name = "TelegramHtmlError";
  constructor(problem: string) {
    super(`Bad Request: can't parse entities: ${problem}`);
  }
}

const TYPES: Readonly<Record<string, TelegramEntity["type"]>> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
  "tg-spoiler": "spoiler",
  span: "spoiler",
  a: "text_link",
  code: "code",
  pre: "pre",
  blockquote: "blockquote",
  "tg-emoji": "custom_emoji",
};
const NAMED: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"' };
const FORMATTING = new Set(["bold", "italic", "underline", "strikethrough", "spoiler"]);

interface Open {
  readonly name: string;
  readonly entity: TelegramEntity;
  readonly at: number;
}

/**
 * Parses Telegram HTML. `trim: false` keeps the text as written (to compare
 * parts of a split message); Telegram itself trims.
 *
 * @example
 * parseTelegramHtml('<b>hi</b> &amp; <a href="https://x.y">there</a>');
 * // { text: "hi & there", entities: [{ type: "bold", offset: 0, length: 2 },
 * //   { type: "text_link", offset: 5, length: 5, url: "https://x.y" }] }
 */
export function parseTelegramHtml(html: string, options: { trim?: boolean } = {}): ParsedHtml {
  let text = "";
  const entities: TelegramEntity[] = [];
  const stack: Open[] = [];
  let i = 0;
  while (i < html.length) {
    const char = html[i] as string;
    if (char === "&") {
      const match = /^&(#\d{1,7}|#x[0-9A-Fa-f]{1,6}|[a-z]+);/.exec(html.slice(i, i + 12));
      const decoded = match ? decodeEntity(match[1] as string) : undefined;
      if (!match || decoded === undefined) {
        throw new TelegramHtmlError(
          `Unsupported or bare "&" at byte offset ${byteOffset(html, i)}; write &amp; (the fake is stricter than Telegram here)`,
        );
      }
      text += decoded;
      i += match[0].length;
      continue;
    }
    if (char === ">") {
      throw new TelegramHtmlError(
        `Unescaped ">" at byte offset ${byteOffset(html, i)}; write &gt; (the fake is stricter than Telegram here)`,
      );
    }
    if (char !== "<") {
      text += char;
      i++;
      continue;
    }
    const end = html.indexOf(">", i);
    if (end < 0)
      throw new TelegramHtmlError(`Unclosed start tag at byte offset ${byteOffset(html, i)}`);
    const tag = html.slice(i + 1, end);
    if (tag.startsWith("/")) {
      closeTag(tag.slice(1).trim().toLowerCase(), stack, entities, text.length, html, i);
    } else {
      openTag(tag, stack, text.length, html, i);
    }
    i = end + 1;
  }
  const unclosed = stack.at(-1);
  if (unclosed) {
    throw new TelegramHtmlError(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  }
  return options.trim === false ? { text, entities: sorted(entities) } : trimmed(text, entities);
}

function openTag(tag: string, stack: Open[], at: number, html: string, i: number): void {
  const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(tag)?.[0]?.toLowerCase() ?? "";
  const type = TYPES[name];
  if (type === undefined) {
    throw new TelegramHtmlError(
      `Unsupported start tag "${name}" at byte offset ${byteOffset(html, i)}`,
    );
  }
  const attributes = parseAttributes(tag.slice(name.length), html, i);
  const entity: TelegramEntity = { type, offset: at, length: 0 };
  if (name === "a") {
    const href = attributes.get("href");
    if (!href) throw new TelegramHtmlError(`Tag "a" must have attribute "href"`);
    entity.url = href;
  }
  if (name === "span" && attributes.get("class") !== "tg-spoiler") {
    throw new TelegramHtmlError(`Tag "span" must have class "tg-spoiler"`);
  }
  if (name === "blockquote" && attributes.has("expandable")) entity.type = "expandable_blockquote";
  const parent = stack.at(-1);
  if (name === "code" && parent?.name === "pre" && parent.at === at) {
    const language = /^language-(.+)$/.exec(attributes.get("class") ?? "")?.[1];
    if (language) parent.entity.language = language;
  } else {
    checkNesting(entity.type, stack, name);
  }
  stack.push({ name, entity, at });
}

function closeTag(
  name: string,
  stack: Open[],
  entities: TelegramEntity[],
  at: number,
  html: string,
  i: number,
): void {
  const open = stack.pop();
  if (!open)
    throw new TelegramHtmlError(`Unexpected end tag at byte offset ${byteOffset(html, i)}`);
  if (open.name !== name) {
    throw new TelegramHtmlError(
      `Unmatched end tag at byte offset ${byteOffset(html, i)}, expected "</${open.name}>", found "</${name}>"`,
    );
  }
  const inPre = open.name === "code" && stack.at(-1)?.name === "pre";
  if (inPre || at === open.at) return;
  entities.push({ ...open.entity, length: at - open.at });
}

/** The nesting rules of the Bot API's formatting options, enforced instead of repaired. */
function checkNesting(type: TelegramEntity["type"], stack: readonly Open[], name: string): void {
  for (const open of stack) {
    const outer = open.entity.type;
    const refused =
      outer === "code" ||
      outer === "pre" ||
      (type === "code" || type === "pre"
        ? FORMATTING.has(outer) || outer === "text_link"
        : false) ||
      (outer === "text_link" && type === "text_link") ||
      (outer.endsWith("blockquote") && type.endsWith("blockquote"));
    if (refused) {
      throw new TelegramHtmlError(
        `<${name}> can't be inside <${open.name}> (the fake is stricter than Telegram here)`,
      );
    }
  }
}

function parseAttributes(rest: string, html: string, i: number): Map<string, string> {
  const attributes = new Map<string, string>();
  const pattern = /\s*([A-Za-z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/y;
  let at = 0;
  while (at < rest.trimEnd().length) {
    pattern.lastIndex = at;
    const match = pattern.exec(rest);
    if (!match) {
      throw new TelegramHtmlError(`Can't parse attributes at byte offset ${byteOffset(html, i)}`);
    }
    const raw = match[2] ?? match[3] ?? match[4] ?? "";
    attributes.set((match[1] as string).toLowerCase(), decodeAttribute(raw));
    at = pattern.lastIndex;
  }
  return attributes;
}

function decodeAttribute(raw: string): string {
  return raw.replace(/&(#\d{1,7}|#x[0-9A-Fa-f]{1,6}|[a-z]+);/g, (whole, name: string) => {
    return decodeEntity(name) ?? whole;
  });
}

function decodeEntity(name: string): string | undefined {
  if (!name.startsWith("#")) return NAMED[name];
  const code = name[1] === "x" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

function byteOffset(html: string, index: number): number {
  return Buffer.byteLength(html.slice(0, index));
}

/** Telegram trims the text; entities move with it and lose what fell off. */
function trimmed(text: string, entities: TelegramEntity[]): ParsedHtml {
  const lead = text.length - text.trimStart().length;
  const result = text.trim();
  const kept: TelegramEntity[] = [];
  for (const entity of entities) {
    const start = Math.max(0, entity.offset - lead);
    const end = Math.min(result.length, entity.offset + entity.length - lead);
    if (end > start) kept.push({ ...entity, offset: start, length: end - start });
  }
  return { text: result, entities: sorted(kept) };
}

function sorted(entities: TelegramEntity[]): TelegramEntity[] {
  return entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
}
