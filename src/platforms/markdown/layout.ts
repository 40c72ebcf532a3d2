import type { Code, Definition, List, ListItem, PhrasingContent, RootContent, Table } from "mdast";
import { parseMarkdown } from "./parse.ts";

export { type MarkedInline, type PhrasingSyntax, renderPhrasing } from "./phrasing.ts";

/**
 * What every channel's markdown renderer shares: the parse (CommonMark with
 * GitHub's extensions, as remark reads it) and the plain-text layout of lists
 * and tables, which no chat platform has as markup, the walk over blocks
 * ({@link renderBlocks}), code blocks kept apart ({@link CodeSlots}), the
 * escaping both markups need and the plain-text fallback. Each renderer keeps
 * its own inline syntax (Slack mrkdwn, Telegram HTML). What every renderer
 * does so: lists get "• " bullets ("◦ ", "▪ " when nested); tables become
 * aligned text in a code block, since no chat has tables; quotes in quotes
 * are flattened, no chat nests them; and it never throws: markdown nested
 * past what a chat shows is flattened (see parseMarkdown), and should
 * rendering fail anyway, the answer goes as escaped plain text.
 */

/** Bullets by nesting depth; deeper lists keep the last. */
const BULLETS = ["•", "◦", "▪"] as const;

/** What a renderer carries through the blocks of one answer. */
export interface LayoutContext extends BlockContext {
  /** The answer's link definitions, by identifier. */
  readonly definitions: ReadonlyMap<string, Definition>;
  /** Its rendered code blocks, put back into their slots at the end. */
  readonly code: CodeSlots;
}

/** One platform's markdown renderer, over the shared parse, walk and fallback. */
export interface MarkdownRendering<C extends LayoutContext> {
  readonly syntax: BlockSyntax<C>;
  /** Escapes text for the platform: the plain-text fallback, too. */
  readonly escape: (text: string) => string;
  /** The private-use characters the renderer marks slots with, dropped from the model's text first. */
  readonly sentinels: RegExp;
  /**
   * The text to parse (with anything the parser must not read set aside)
   * and the context over the shared one; default: the text as it is.
   */
  readonly begin?: (text: string) => { source: string; context: (base: LayoutContext) => C };
  /** What the blocks rendered to, before code goes back into its slots. */
  readonly finish?: (out: string) => string;
}

/**
 * The model's markdown in a platform's markup: parsed, each block rendered
 * with `rendering.syntax`, code put back last (so indenting list items and
 * quoting never touch its lines), and should anything throw, the text
 * escaped (see {@link renderOrPlain}).
 */
export function renderMarkdown<C extends LayoutContext>(
  markdown: string,
  rendering: MarkdownRendering<C>,
): string {
  const render = (text: string): string => {
    const clean = text.replace(rendering.sentinels, "");
    const { source, context } = rendering.begin?.(clean) ?? {
      source: clean,
      context: (base: LayoutContext) => base as C,
    };
    const { tree, definitions } = parseMarkdown(source);
    return renderTopBlocks(tree.children, definitions, context, rendering).trimEnd();
  };
  return renderOrPlain(markdown, render, rendering.escape);
}

/**
 * Top-level blocks of one parse in a platform's markup, code put back,
 * not trimmed: what {@link renderMarkdown} joins, and what an incremental
 * render (incremental.ts) keeps of the blocks that are finished.
 */
export function renderTopBlocks<C extends LayoutContext>(
  blocks: readonly RootContent[],
  definitions: ReadonlyMap<string, Definition>,
  context: (base: LayoutContext) => C,
  rendering: MarkdownRendering<C>,
): string {
  const ctx = context({ definitions, code: new CodeSlots(), depth: 0, inQuote: false });
  const out = renderBlocks(blocks, ctx, "\n\n", rendering.syntax);
  return ctx.code.fill(rendering.finish?.(out) ?? out);
}

/**
 * Renders the model's markdown, or, should the renderer throw on input
 * nobody foresaw, shows it as plain text (escaped by `plain`): an answer
 * formatted worse is better than an answer that never arrives. Lone
 * surrogates (a cut in the middle of an emoji) become U+FFFD first, since
 * no platform accepts text that is not valid Unicode.
 */
export function renderOrPlain(
  markdown: string,
  render: (markdown: string) => string,
  plain: (text: string) => string,
): string {
  const text = toWellFormed(markdown);
  try {
    return render(text);
  } catch {
    return plain(text).trimEnd();
  }
}

/** Text with each lone surrogate (half an emoji, from a cut) as U+FFFD: valid Unicode, which platforms require. */
export function toWellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Escapes the three characters both Slack mrkdwn and Telegram HTML read as
 * markup (`&`, `<`, `>`), and makes lone surrogates U+FFFD.
 */
export function escapeMarkup(text: string): string {
  return toWellFormed(text).replace(/[&<>]/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;",
  );
}

/** Where a rendered code block waits, so indenting and quoting the text around it leave its lines alone. */
const CODE_SLOT = /\uE000(\d+)\uE001/g;

/**
 * Rendered code blocks, set aside in slots (private-use characters the
 * renderer drops from its input first) and put back last.
 */
export class CodeSlots {
  readonly #code: string[] = [];

  /** The slot standing for `rendered` until {@link fill}. */
  hold(rendered: string): string {
    this.#code.push(rendered);
    return `\uE000${this.#code.length - 1}\uE001`;
  }

  /** `text` with each slot replaced by its code. */
  fill(text: string): string {
    return text.replace(CODE_SLOT, (_, index: string) => this.#code[Number(index)] ?? "");
  }
}

/**
 * A list as lines: numbered or bulleted by depth, task boxes as the platform
 * shows them, and an item's further lines indented under its first.
 * `render` lays out an item's blocks one level deeper.
 */
export function layoutList<C extends { readonly depth: number }>(
  node: List,
  ctx: C,
  render: (children: ListItem["children"], ctx: C, separator: string) => string,
  boxes: { readonly checked: string; readonly unchecked: string },
): string {
  const inner: C = { ...ctx, depth: ctx.depth + 1 };
  const start = node.start ?? 1;
  const bullet = BULLETS[Math.min(ctx.depth, BULLETS.length - 1)] as string;
  return node.children
    .map((item, i) => {
      const marker = node.ordered ? `${start + i}.` : bullet;
      const check =
        item.checked === true ? boxes.checked : item.checked === false ? boxes.unchecked : "";
      const [first = "", ...rest] = render(item.children, inner, item.spread ? "\n\n" : "\n").split(
        "\n",
      );
      const indent = " ".repeat(marker.length + 1);
      return [
        `${marker} ${check}${first}`.trimEnd(),
        ...rest.map((line) => (line === "" ? "" : indent + line)),
      ].join("\n");
    })
    .join(node.spread ? "\n\n" : "\n");
}

/** A table's plain cells as aligned columns under a rule, for a monospace block. */
export function layoutTable(rows: readonly (readonly string[])[]): string {
  const [head, ...body] = rows;
  if (head === undefined) return "";
  const columns = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(3, ...rows.map((row) => (row[c] ?? "").length)),
  );
  const line = (row: readonly string[]) =>
    widths
      .map((width, c) => (row[c] ?? "").padEnd(width))
      .join(" | ")
      .trimEnd();
  return [line(head), widths.map((w) => "-".repeat(w)).join(" | "), ...body.map(line)].join("\n");
}

/** The context every block renderer carries: list depth and whether it is inside a quote. */
export interface BlockContext {
  readonly depth: number;
  readonly inQuote: boolean;
}

/** A thematic break, for a platform that draws none of its own (Slack, Telegram): a line of box-drawing dashes. */
export const RULE = "──────────";

/**
 * What a platform's renderer says about each kind of block; the walk over
 * them ({@link renderBlocks}) is shared. Each returns "" to show nothing.
 */
export interface BlockSyntax<C extends BlockContext> {
  readonly paragraph: (children: readonly PhrasingContent[], ctx: C) => string;
  readonly heading: (children: readonly PhrasingContent[], ctx: C) => string;
  /** A thematic break's line. */
  readonly rule: string;
  /** A quote around what its blocks rendered to (maybe nothing); quotes in quotes are flattened before it is called. */
  readonly quote: (inner: string) => string;
  /** What marks a task list item done or open. */
  readonly boxes: { readonly checked: string; readonly unchecked: string };
  readonly code: (node: Code, ctx: C) => string;
  readonly table: (node: Table, ctx: C) => string;
  /** Raw HTML the model wrote: shown as text, never markup. */
  readonly html: (value: string, ctx: C) => string;
  /** A footnote definition's label, escaped. */
  readonly footnoteLabel: (label: string, ctx: C) => string;
}

/**
 * Renders block nodes with a platform's syntax, joined by `separator`,
 * leaving out blocks that render to nothing. Chat platforms nest neither
 * quotes nor tables, so a quote in a quote is flattened into it, and
 * definitions and front matter show nothing (links read their definitions).
 */
export function renderBlocks<C extends BlockContext>(
  nodes: readonly RootContent[],
  ctx: C,
  separator: string,
  syntax: BlockSyntax<C>,
): string {
  const walk = (children: readonly RootContent[], inner: C, sep: string): string =>
    renderBlocks(children, inner, sep, syntax);
  return nodes
    .map((node): string => {
      switch (node.type) {
        case "paragraph":
          return syntax.paragraph(node.children, ctx);
        case "heading":
          return syntax.heading(node.children, ctx);
        case "thematicBreak":
          return syntax.rule;
        case "blockquote": {
          if (ctx.inQuote) return walk(node.children, ctx, "\n\n");
          return syntax.quote(walk(node.children, { ...ctx, inQuote: true }, "\n\n"));
        }
        case "list":
          return layoutList(node, ctx, walk, syntax.boxes);
        case "code":
          return syntax.code(node, ctx);
        case "table":
          return syntax.table(node, ctx);
        case "html":
          return syntax.html(node.value, ctx);
        case "footnoteDefinition":
          return `[${syntax.footnoteLabel(node.label ?? node.identifier, ctx)}] ${walk(node.children, ctx, "\n")}`;
        default:
          return "";
      }
    })
    .filter((text) => text !== "")
    .join(separator);
}

/** Whether a link's address uses one of `protocols` (`"https:"`…); an unparsable address is not safe. */
export function hasSafeProtocol(url: string, protocols: ReadonlySet<string>): boolean {
  try {
    return protocols.has(new URL(url).protocol);
  } catch {
    return false;
  }
}
