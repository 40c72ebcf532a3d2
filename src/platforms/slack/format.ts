import type { Nodes, PhrasingContent, Table } from "mdast";
import { IncrementalMarkdown } from "../markdown/incremental.ts";
import * as layout from "../markdown/layout.ts";
import { plainText } from "../markdown/parse.ts";

/**
 * Converts the model's markdown (CommonMark with GitHub's extensions) to
 * Slack mrkdwn.
 *
 * - `**bold**` becomes `*bold*`, `*italic*` and `_italic_` become `_italic_`,
 *   `~~strike~~` becomes `~strike~`, a heading becomes a bold line.
 * - `[text](url)` becomes `<url|text>`; only http, https and mailto links stay
 *   links, anything else (`javascript:`, relative paths) keeps just its text.
 * - `&`, `<` and `>` are escaped everywhere, as Slack requires, except in the
 *   Slack syntax the model may write itself: `<@U123>`, `<#C123|general>`,
 *   `<https://…|label>`, and a quote's `>` at the start of a line (Slack
 *   quotes only there: a quote in a list item or a quote shows its `>` as
 *   text). Special mentions (`<!here>`, `<!channel>`) are escaped on
 *   purpose: a model's answer must not page a whole channel.
 * - Lists, tables, quotes in quotes and what it does with input it cannot
 *   render are the shared layout's (markdown-layout.ts); it never throws.
 * - Code spans and code blocks are not converted, and read exactly as
 *   written. They are escaped too: Slack parses `<…>` even inside code
 *   (`map<string,string>` shows as "mapstringstring") and decodes the three
 *   entities there. A run of three backticks inside code gets zero-width
 *   spaces, so it cannot close Slack's block early.
 *
 * Why not slackify-markdown: its current release requires Node 22, and it
 * leaves `<` raw inside code, escapes only one `>` per run of text and keeps
 * any `<@…` unescaped. This uses the same parser (micromark with GFM, as
 * remark does) and renders the tree itself.
 *
 * @example
 * toMrkdwn("## Result\n**Done**, see [the PR](https://github.com/o/r/pull/1).");
 * // "*Result*\n\n*Done*, see <https://github.com/o/r/pull/1|the PR>."
 */
export function toMrkdwn(markdown: string): string {
  return STREAM.render(markdown);
}

/** Escapes the three characters Slack reads as control characters, and makes lone surrogates U+FFFD. */
export function escapeMrkdwn(text: string): string {
  return layout.escapeMarkup(text);
}

interface Context extends layout.LayoutContext {
  /** The Slack tokens set aside before parsing, by slot number. */
  readonly tokens: readonly string[];
}

interface Inline extends layout.MarkedInline {
  /** In a link label: Slack links do not nest, so no token stays raw. */
  readonly inLink: boolean;
}

// Private-use characters mark slots (code's are U+E000 and U+E001, see
// CodeSlots); any in the input are dropped first.
const TOKEN_OPEN = "\uE002";
const TOKEN_CLOSE = "\uE003";
const TOKEN_SLOT = /\uE002(\d+)\uE003/g;
// U+E004 stands for a space inside a token while splitting (split.ts).
/** A quote's marker, raw only where Slack reads it: at the start of a line. */
const QUOTE = "\uE005";
const QUOTE_AT_LINE_START = /(^|\n)\uE005/g;
const SENTINELS = /[\uE000-\uE005]/g;

/** Slack syntax the model may write itself: user and channel mentions, links. */
const SLACK_TOKEN = /<(?:[@#][A-Z0-9]+|(?:https?|mailto):[^\s<>|`]+)(?:\|[^<>\n`]*)?>/g;
const SAFE_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
const ZWSP = "\u200B";
const WORD = /[\p{L}\p{N}]/u;
const NO_STYLE: Inline = { inLink: false, open: [] };

const SYNTAX: layout.BlockSyntax<Context> = {
  paragraph: (children, ctx) => phrasing(children, ctx, NO_STYLE),
  heading: (children, ctx) => {
    const text = phrasing(children, ctx, { inLink: false, open: ["*"] });
    return text === "" ? "" : `*${text}*`;
  },
  rule: layout.RULE,
  // Slack quotes only at the start of a line, one level deep.
  quote: (inner) =>
    inner
      .split("\n")
      .map((line) => (line === "" ? QUOTE : `${QUOTE} ${line}`))
      .join("\n"),
  boxes: { checked: "[x] ", unchecked: "[ ] " },
  code: (node, ctx) => codeBlock(restore(node.value, ctx), ctx),
  table: (node, ctx) => codeBlock(tableText(node, ctx), ctx),
  html: (value, ctx) => escapeMrkdwn(restore(value, ctx)),
  footnoteLabel: (label, ctx) => escapeMrkdwn(restore(label, ctx)),
};

/** The rendering toMrkdwn runs (exported for the tests and the bench that compare it with a whole render). */
export const MRKDWN: layout.MarkdownRendering<Context> = {
  syntax: SYNTAX,
  escape: escapeMrkdwn,
  sentinels: SENTINELS,
  // Slack tokens are set aside before parsing: markdown reads `<https://x|a b>`
  // as text around a bare link, and `<https://x|label>` as a link to "x|label".
  begin: (text) => {
    const tokens: string[] = [];
    const source = text.replace(SLACK_TOKEN, (token) => {
      tokens.push(token);
      return `${TOKEN_OPEN}${tokens.length - 1}${TOKEN_CLOSE}`;
    });
    return { source, context: (base) => ({ ...base, tokens }) };
  },
  finish: (out) => out.replace(QUOTE_AT_LINE_START, "$1>").replaceAll(QUOTE, "&gt;"),
};

/** Streamed answers are rendered on every edit: finished blocks are kept (see IncrementalMarkdown). */
const STREAM = new IncrementalMarkdown(MRKDWN);

/** A code block in a slot, so later indenting and quoting leave its lines alone. */
function codeBlock(value: string, ctx: Context): string {
  return ctx.code.hold(`\`\`\`\n${codeText(value)}\n\`\`\``);
}

function codeText(value: string): string {
  return escapeMrkdwn(value).replace(/`{3,}/g, (run) => run.split("").join(ZWSP));
}

function tableText(table: Table, ctx: Context): string {
  return layout.layoutTable(
    table.children.map((row) => row.children.map((cell) => plain(cell, ctx).trim())),
  );
}

/** A node's text without formatting, tokens restored, unescaped. */
function plain(node: Nodes, ctx: Context): string {
  return restore(plainText(node), ctx).replace(/\n/g, " ");
}

const PHRASING: layout.PhrasingSyntax<Context, Inline> = {
  markOf: markerOf,
  leaf: inlineNode,
  // Slack reads a marker only at a word boundary: `hel*l*o` needs zero-width spaces.
  wrap: (marker, text, next, before) => {
    const open = WORD.test(before.slice(-1)) ? ZWSP : "";
    const close = next?.type === "text" && WORD.test(next.value.charAt(0)) ? ZWSP : "";
    return `${open}${marker}${text}${marker}${close}`;
  },
};

function phrasing(nodes: readonly PhrasingContent[], ctx: Context, inline: Inline): string {
  return layout.renderPhrasing(nodes, ctx, inline, PHRASING);
}

function markerOf(node: PhrasingContent): string | undefined {
  if (node.type === "strong") return "*";
  if (node.type === "emphasis") return "_";
  if (node.type === "delete") return "~";
  return undefined;
}

function inlineNode(node: PhrasingContent, ctx: Context, inline: Inline): string {
  switch (node.type) {
    case "text":
      return text(node.value, ctx, inline);
    case "inlineCode":
      // A line ending in a code span is a space (CommonMark); Slack would end the span there.
      return `\`${codeText(restore(node.value, ctx).replace(/\n/g, " "))}\``;
    case "break":
      return inline.inLink ? " " : "\n";
    case "html":
      return escapeMrkdwn(restore(node.value, ctx));
    case "link": {
      const label = phrasing(node.children, ctx, { ...inline, inLink: true });
      return inline.inLink ? label : link(node.url, label, plain(node, ctx), ctx);
    }
    case "linkReference": {
      const label = phrasing(node.children, ctx, { ...inline, inLink: true });
      const definition = ctx.definitions.get(node.identifier);
      return definition && !inline.inLink
        ? link(definition.url, label, plain(node, ctx), ctx)
        : label;
    }
    case "image":
    case "imageReference": {
      const alt = restore(node.alt ?? "", ctx);
      const url = node.type === "image" ? node.url : ctx.definitions.get(node.identifier)?.url;
      return url === undefined || inline.inLink
        ? escapeMrkdwn(alt)
        : link(url, escapeMrkdwn(alt), alt, ctx);
    }
    case "footnoteReference":
      return `[${escapeMrkdwn(restore(node.label ?? node.identifier, ctx))}]`;
    default:
      return "";
  }
}

/** Text outside code: escaped, but a Slack token written on purpose stays one (not in a link label). */
function text(value: string, ctx: Context, inline: Inline): string {
  if (inline.inLink) return escapeMrkdwn(restore(value, ctx).replace(/\s*\n\s*/g, " "));
  let out = "";
  let last = 0;
  for (const match of value.matchAll(TOKEN_SLOT)) {
    out += escapeMrkdwn(value.slice(last, match.index));
    out += (ctx.tokens[Number(match[1])] ?? "").replaceAll("&", "&amp;");
    last = match.index + match[0].length;
  }
  return out + escapeMrkdwn(value.slice(last));
}

/** `<url|label>`, `<url>` when the label is the address, or only the label for an unsafe address. */
function link(rawUrl: string, label: string, labelText: string, ctx: Context): string {
  // `[a](<https://x>)` wraps the address in brackets, which were set aside as a token.
  const url = restore(rawUrl, ctx).replace(/^<(.*)>$/s, "$1");
  if (!isSafe(url)) return label;
  const address = url.replace(/[\s<>|]/g, (c) => encodeURIComponent(c)).replaceAll("&", "&amp;");
  // Slack's `<url|label>` ends at a line break: an image's alt text keeps the newlines it was
  // written with (a link's label is phrasing, already on one line), so they become spaces here.
  const oneLine = label.replaceAll("\n", " ");
  return oneLine === "" || labelText === url ? `<${address}>` : `<${address}|${oneLine}>`;
}

function isSafe(url: string): boolean {
  return layout.hasSafeProtocol(url, SAFE_PROTOCOLS);
}

/** Puts the tokens set aside before parsing back, as written. */
function restore(value: string, ctx: Context): string {
  return value.replace(TOKEN_SLOT, (_, index: string) => ctx.tokens[Number(index)] ?? "");
}
