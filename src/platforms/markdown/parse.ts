import type { Definition, Nodes, Paragraph, Root, Text } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFor, mayHoldLiteralLink } from "./gfm-constructs.ts";
import { boundNesting } from "./nesting.ts";

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
  return parseBoundedMarkdown(boundNesting(source));
}

/**
 * {@link parseMarkdown} for text its caller has already seen is bounded
 * (`boundNesting(bounded) === bounded`): a streamed answer's renderer
 * checks every text before it parses part of it, and scanning it again
 * would be a third time.
 */
export function parseBoundedMarkdown(bounded: string): {
  tree: Root;
  definitions: Map<string, Definition>;
} {
  const tree = plainLine(bounded) ?? fromMarkdown(bounded, gfmFor(bounded));
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

/**
 * The tree of one line of plain words, as GFM reads it, built without the
 * parser; undefined for anything else. A streamed answer's first draft
 * (a word or two) and the open sentence at the end of later ones are often
 * this, and parsing even a word costs tens of microseconds of setup. Plain
 * means: no line ending, a letter first (so no block starts), and only
 * letters, digits, spaces and punctuation no construct begins with (micromark
 * gives no character past ASCII a meaning of its own outside emphasis); a
 * literal link is no plain text either (see {@link mayHoldLiteralLink}).
 * Status lines ("Searching the web…") are this too.
 */
function plainLine(source: string): Root | undefined {
  if (!PLAIN_LINE.test(source) || mayHoldLiteralLink(source)) return undefined;
  const text = source.trimEnd();
  const end = { line: 1, column: source.length + 1, offset: source.length };
  const textEnd = { line: 1, column: text.length + 1, offset: text.length };
  const start = () => ({ line: 1, column: 1, offset: 0 });
  const value: Text = { type: "text", value: text, position: { start: start(), end: textEnd } };
  const paragraph: Paragraph = {
    type: "paragraph",
    children: [value],
    position: { start: start(), end },
  };
  return { type: "root", children: [paragraph], position: { start: start(), end: { ...end } } };
}

/** A letter, then letters, digits, spaces, inert ASCII punctuation, or anything past ASCII but whitespace (`…`, `—`, `’`, emoji). */
const PLAIN_LINE = /^\p{L}(?:[\p{L}\p{M}\p{N} ,.;:!?'"()%/=+-]|[^\p{ASCII}\s])*$/u;

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
