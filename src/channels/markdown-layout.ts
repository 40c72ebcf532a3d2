import type {
  Code,
  Definition,
  List,
  ListItem,
  Nodes,
  PhrasingContent,
  Root,
  RootContent,
  Table,
} from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { boundNesting } from "./markdown-nesting.ts";

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

/**
 * The model's markdown as a tree, with its link definitions by identifier
 * (the first wins). Nesting is bounded twice, so the renderers may recurse:
 * quotes and lists before parsing ({@link boundNesting}), and what is left
 * (emphasis in emphasis) in the tree, whose nodes past {@link MAX_TREE_DEPTH}
 * hold their text as plain text.
 */
export function parseMarkdown(source: string): {
  tree: Root;
  definitions: Map<string, Definition>;
} {
  const tree = fromMarkdown(boundNesting(source), {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  });
  const definitions = new Map<string, Definition>();
  const pending: [Nodes, number][] = [[tree, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (node.type === "definition" && !definitions.has(node.identifier)) {
      definitions.set(node.identifier, node);
    }
    if (!("children" in node)) continue;
    if (depth >= MAX_TREE_DEPTH) {
      flatten(node);
      continue;
    }
    // Last child first, so definitions are met in document order.
    for (let i = node.children.length - 1; i >= 0; i--) {
      pending.push([node.children[i] as Nodes, depth + 1]);
    }
  }
  return { tree, definitions };
}

/** How deep the tree may go: 16 nested lists are 32 levels, and inline nesting past the rest shows nothing more. */
export const MAX_TREE_DEPTH = 64;

/** A node's text without formatting, a line break as a space; walked without recursion, so any depth is safe. */
export function plainText(node: Nodes): string {
  let out = "";
  const pending: Nodes[] = [node];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.type === "break") out += " ";
    else if ("value" in next) out += next.value.replace(/\n/g, " ");
    else if ("children" in next) {
      for (let i = next.children.length - 1; i >= 0; i--) pending.push(next.children[i] as Nodes);
    } else if (next.type === "image" || next.type === "imageReference") out += next.alt ?? "";
  }
  return out;
}

/** Replaces a node's descendants by their plain text, in a child its type allows. */
function flatten(node: Extract<Nodes, { children: unknown }>): void {
  const text = { type: "text", value: plainText(node) } as const;
  const paragraph = { type: "paragraph", children: [text] } as const;
  const item = { type: "listItem", spread: false, children: [paragraph] } as const;
  const cell = { type: "tableCell", children: [text] } as const;
  const child =
    node.type === "list"
      ? item
      : node.type === "table"
        ? { type: "tableRow", children: [cell] }
        : node.type === "tableRow"
          ? cell
          : node.type === "root" ||
              node.type === "blockquote" ||
              node.type === "listItem" ||
              node.type === "footnoteDefinition"
            ? paragraph
            : text;
  (node as { children: unknown[] }).children = [child];
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
