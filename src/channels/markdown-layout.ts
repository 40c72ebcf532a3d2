import type { Definition, List, ListItem, Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

/**
 * What every channel's markdown renderer shares: the parse (CommonMark with
 * GitHub's extensions, as remark reads it) and the plain-text layout of lists
 * and tables, which no chat platform has as markup. Each renderer keeps its
 * own inline syntax and escaping (Slack mrkdwn, Telegram HTML).
 */

/** Bullets by nesting depth; deeper lists keep the last. */
const BULLETS = ["•", "◦", "▪"] as const;

/** The model's markdown as a tree, with its link definitions by identifier (the first wins). */
export function parseMarkdown(source: string): {
  tree: Root;
  definitions: Map<string, Definition>;
} {
  const tree = fromMarkdown(source, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const definitions = new Map<string, Definition>();
  collectDefinitions(tree, definitions);
  return { tree, definitions };
}

function collectDefinitions(node: Nodes, into: Map<string, Definition>): void {
  if (node.type === "definition" && !into.has(node.identifier)) into.set(node.identifier, node);
  if ("children" in node) for (const child of node.children) collectDefinitions(child, into);
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
