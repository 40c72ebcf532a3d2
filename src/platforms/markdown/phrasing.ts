import type { PhrasingContent } from "mdast";

/** Formatting open around a run of inline text, outermost first. */
export interface MarkedInline {
  readonly open: readonly string[];
}

/** How one renderer writes inline text: its mark for strong, emphasis and delete, and the rest. */
export interface PhrasingSyntax<C, I extends MarkedInline> {
  /** The mark a node stands for (`*`, `<b>`'s `b`), or undefined for a node written by `leaf`. */
  readonly markOf: (node: PhrasingContent) => string | undefined;
  /** Writes a node that is not a mark: text, code, a link, a break. */
  readonly leaf: (node: PhrasingContent, ctx: C, inline: I) => string;
  /** Writes a marked run; `before` is what was written so far, `next` the node after it. */
  readonly wrap: (
    mark: string,
    text: string,
    next: PhrasingContent | undefined,
    before: string,
  ) => string;
}

/**
 * Inline content with its marks: a mark already open around it (bold in a
 * heading, `**a **b** c**`) is not opened again, and a run that is only
 * whitespace is written bare, since no chat shows an empty bold.
 */
export function renderPhrasing<C, I extends MarkedInline>(
  nodes: readonly PhrasingContent[],
  ctx: C,
  inline: I,
  syntax: PhrasingSyntax<C, I>,
): string {
  let out = "";
  nodes.forEach((node, i) => {
    const mark = syntax.markOf(node);
    const children = "children" in node ? (node.children as PhrasingContent[]) : [];
    if (mark === undefined) out += syntax.leaf(node, ctx, inline);
    else if (inline.open.includes(mark)) out += renderPhrasing(children, ctx, inline, syntax);
    else {
      const text = renderPhrasing(
        children,
        ctx,
        { ...inline, open: [...inline.open, mark] },
        syntax,
      );
      out += text.trim() === "" ? text : syntax.wrap(mark, text, nodes[i + 1], out);
    }
  });
  return out;
}
