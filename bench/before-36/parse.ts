/**
 * parseMarkdown as it was before issue 36 (commit 7468101), kept for
 * `npm run bench -- stream-render` to measure the path it replaced in the
 * same run: GFM's literal-link search ran on every parse.
 */
import type { Definition, Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { boundNesting } from "../../src/platforms/markdown/nesting.ts";
import { MAX_TREE_DEPTH, plainText } from "../../src/platforms/markdown/parse.ts";

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
  const tree = fromMarkdown(boundNesting(source), GFM);
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
 * GFM's syntax and tree extensions, built once: building them is as costly
 * as parsing a short answer, and a streamed answer is parsed on every edit.
 * Both are stateless tables of constructs and handlers, safe to share.
 */
const GFM = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

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
