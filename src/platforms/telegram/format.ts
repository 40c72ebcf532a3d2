import type { PhrasingContent, Table } from "mdast";
import { IncrementalMarkdown } from "../markdown/incremental.ts";
import * as layout from "../markdown/layout.ts";
import { plainText } from "../markdown/parse.ts";

/**
 * Converts the model's markdown (CommonMark with GitHub's extensions) to the
 * HTML subset Telegram's `parse_mode: "HTML"` reads.
 *
 * - `**bold**`, `*italic*`, `~~strike~~` become `<b>`, `<i>`, `<s>`; a
 *   heading becomes a bold line; a quote becomes `<blockquote>` (quotes in
 *   quotes are flattened: Telegram cannot nest them).
 * - `[text](url)` becomes `<a href="url">text</a>` for http, https, mailto
 *   and tg links; any other address (`javascript:`, a relative path) keeps
 *   just its text.
 * - Code blocks become `<pre><code class="language-ts">…</code></pre>` and
 *   read exactly as written; inline code becomes `<code>`. Telegram lets no
 *   entity contain code, so formatting open around a code span is closed
 *   before it and reopened after it, and code inside a link label is plain.
 * - Tables become aligned text in a `<pre>` block.
 * - `&`, `<` and `>` are escaped everywhere, raw HTML the model writes
 *   included: it shows as written, it never becomes markup.
 * - Lists, quotes in quotes and what it does with input it cannot render
 *   are the shared layout's (markdown-layout.ts); it never throws.
 *
 * Why not an npm converter: the ones for Telegram target MarkdownV2 or emit
 * tags Telegram refuses. This uses the parser remark uses (micromark with
 * GFM) and renders the tree itself, like the Slack channel's mrkdwn.ts.
 *
 * @example
 * toTelegramHtml("## Result\n**Done**, see [the PR](https://github.com/o/r/pull/1) & `a<b`.");
 * // '<b>Result</b>\n\n<b>Done</b>, see <a href="https://github.com/o/r/pull/1">the PR</a> &amp; <code>a&lt;b</code>.'
 */
export function toTelegramHtml(markdown: string): string {
  return STREAM.render(markdown);
}

/**
 * Escapes text for Telegram HTML: the three characters it reads as markup,
 * and lone surrogates (as U+FFFD), since Telegram refuses text that is not
 * UTF-8.
 */
export function escapeHtml(text: string): string {
  return layout.escapeMarkup(text);
}

/** Escapes an attribute value (a link's address), quotes included. */
function escapeAttribute(text: string): string {
  return escapeHtml(text).replaceAll('"', "&quot;");
}

type Context = layout.LayoutContext;

/** `open`: the formatting tags around this text, outermost first. */
interface Inline extends layout.MarkedInline {
  /** In a link label: links do not nest, and code cannot be part of a link. */
  readonly inLink: boolean;
}

// Private-use characters mark code slots (see CodeSlots); any in the input are dropped first.
const SENTINELS = /[\uE000\uE001]/g;
/** What closing formatting around a code span can leave behind: `<b></b>`. */
const EMPTY_TAGS = /<(b|i|s)><\/\1>/g;
const SAFE_PROTOCOLS = new Set(["http:", "https:", "mailto:", "tg:"]);
/** What Telegram accepts after `language-`: the names libprisma knows look like this. */
const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}$/;
const NO_STYLE: Inline = { inLink: false, open: [] };

const SYNTAX: layout.BlockSyntax<Context> = {
  paragraph: (children, ctx) => phrasing(children, ctx, NO_STYLE),
  heading: (children, ctx) => {
    const text = phrasing(children, ctx, { inLink: false, open: ["b"] });
    return text.trim() === "" ? "" : `<b>${text}</b>`;
  },
  rule: layout.RULE,
  quote: (inner) => (inner === "" ? "" : `<blockquote>${inner}</blockquote>`),
  boxes: { checked: "☑ ", unchecked: "☐ " },
  code: (node, ctx) =>
    node.value === "" ? "" : codeBlock(node.value, node.lang ?? undefined, ctx),
  table: (node, ctx) => codeBlock(tableText(node), undefined, ctx),
  html: (value) => escapeHtml(value),
  footnoteLabel: (label) => escapeHtml(label),
};

/** The rendering toTelegramHtml runs (exported for the tests and the bench that compare it with a whole render). */
export const TELEGRAM_HTML: layout.MarkdownRendering<Context> = {
  syntax: SYNTAX,
  escape: escapeHtml,
  sentinels: SENTINELS,
  finish: (rendered) => {
    let out = rendered;
    for (let before = ""; before !== out; ) {
      before = out;
      out = out.replace(EMPTY_TAGS, "");
    }
    return out;
  },
};

/** Streamed answers are rendered on every edit: finished blocks are kept (see IncrementalMarkdown). */
const STREAM = new IncrementalMarkdown(TELEGRAM_HTML);

/** A code block in a slot, so later indenting leaves its lines alone. */
function codeBlock(value: string, lang: string | undefined, ctx: Context): string {
  const body = escapeHtml(value);
  return ctx.code.hold(
    lang !== undefined && LANGUAGE.test(lang)
      ? `<pre><code class="language-${lang}">${body}</code></pre>`
      : `<pre>${body}</pre>`,
  );
}

/**
 * A table as monospace text. Columns are padded to line up when that keeps
 * the table no longer than its markdown (a part of the answer was measured as
 * markdown, so it must not grow past Telegram's limit); else cells are only
 * separated.
 */
function tableText(table: Table): string {
  const rows = table.children.map((row) => row.children.map((cell) => plainText(cell).trim()));
  const padded = layout.layoutTable(rows);
  const start = table.position?.start.offset;
  const end = table.position?.end.offset;
  const budget = start !== undefined && end !== undefined ? end - start : Number.POSITIVE_INFINITY;
  return padded.length <= budget ? padded : rows.map((row) => row.join(" | ")).join("\n");
}

const TAG: Partial<Record<PhrasingContent["type"], string>> = {
  strong: "b",
  emphasis: "i",
  delete: "s",
};

const PHRASING: layout.PhrasingSyntax<Context, Inline> = {
  markOf: (node) => TAG[node.type],
  leaf: inlineNode,
  wrap: (tag, text) => `<${tag}>${text}</${tag}>`,
};

function phrasing(nodes: readonly PhrasingContent[], ctx: Context, inline: Inline): string {
  return layout.renderPhrasing(nodes, ctx, inline, PHRASING);
}

function inlineNode(node: PhrasingContent, ctx: Context, inline: Inline): string {
  switch (node.type) {
    case "text":
      return escapeHtml(node.value);
    case "inlineCode": {
      // A line ending in a code span is a space (CommonMark).
      const code = escapeHtml(node.value.replace(/\n/g, " "));
      if (inline.inLink) return code;
      // Telegram lets no entity contain code: close what is open, reopen after.
      const close = [...inline.open].reverse().map((tag) => `</${tag}>`);
      const reopen = inline.open.map((tag) => `<${tag}>`);
      return `${close.join("")}<code>${code}</code>${reopen.join("")}`;
    }
    case "break":
      return inline.inLink ? " " : "\n";
    case "html":
      return escapeHtml(node.value);
    case "link": {
      if (inline.inLink) return phrasing(node.children, ctx, inline);
      const label = phrasing(node.children, ctx, { ...inline, inLink: true });
      return link(node.url, label, plainText(node));
    }
    case "linkReference": {
      const label = phrasing(node.children, ctx, { ...inline, inLink: true });
      const definition = ctx.definitions.get(node.identifier);
      return definition && !inline.inLink ? link(definition.url, label, plainText(node)) : label;
    }
    case "image":
    case "imageReference": {
      const alt = node.alt ?? "";
      const url = node.type === "image" ? node.url : ctx.definitions.get(node.identifier)?.url;
      return url === undefined || inline.inLink ? escapeHtml(alt) : link(url, escapeHtml(alt), alt);
    }
    case "footnoteReference":
      return `[${escapeHtml(node.label ?? node.identifier)}]`;
    default:
      return "";
  }
}

/** `<a href="url">label</a>`, the address as the label when there is none, or only the label for an unsafe address. */
function link(url: string, label: string, labelText: string): string {
  if (!isSafe(url)) return label;
  const shown = label.trim() === "" || labelText.trim() === "" ? escapeHtml(url) : label;
  return `<a href="${escapeAttribute(url)}">${shown}</a>`;
}

function isSafe(url: string): boolean {
  return layout.hasSafeProtocol(url, SAFE_PROTOCOLS);
}
