import fc from "fast-check";
import type { Nodes } from "mdast";
import { describe, expect, it } from "vitest";
import { renderOrPlain } from "../../src/platforms/markdown/layout.ts";
import { MAX_TREE_DEPTH, parseMarkdown, plainText } from "../../src/platforms/markdown/parse.ts";
import { deepMarkdown } from "../fakes/deep-markdown.ts";

function treeDepth(tree: Nodes): number {
  let deepest = 0;
  const pending: [Nodes, number][] = [[tree, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    deepest = Math.max(deepest, depth);
    if ("children" in node) for (const child of node.children) pending.push([child, depth + 1]);
  }
  return deepest;
}

describe("parseMarkdown", () => {
  it("keeps emphasis nested 500 deep as plain text past the depth the renderers recurse to", () => {
    const { tree } = parseMarkdown(`${"**a ".repeat(500)}core${" b**".repeat(500)}`);
    // A capped node holds one child of its kind, which holds the text.
    expect(treeDepth(tree)).toBeLessThanOrEqual(MAX_TREE_DEPTH + 3);
    expect(plainText(tree)).toBe(`${"a ".repeat(500)}core${" b".repeat(500)}`);
  });

  it("finds link definitions in document order, the first winning", () => {
    const { definitions } = parseMarkdown(
      "[a]: https://one.e\n\n> [a]: https://two.e\n\n[b]: https://b.e",
    );
    expect(definitions.get("a")?.url).toBe("https://one.e");
    expect(definitions.get("b")?.url).toBe("https://b.e");
  });

  it("property: the tree is never deeper than the renderers may recurse, whatever the markdown", () => {
    fc.assert(
      fc.property(deepMarkdown, (markdown) => {
        expect(treeDepth(parseMarkdown(markdown).tree)).toBeLessThanOrEqual(MAX_TREE_DEPTH + 3);
      }),
      { numRuns: 50 },
    );
  });
});

describe("renderOrPlain", () => {
  const escapeLt = (text: string) => text.replaceAll("<", "&lt;");

  it("sends the answer as escaped plain text, once, when the renderer throws", () => {
    let calls = 0;
    const broken = () => {
      calls++;
      throw new RangeError("Maximum call stack size exceeded");
    };
    expect(renderOrPlain("**a** < b\n\n", broken, escapeLt)).toBe("**a** &lt; b");
    expect(calls).toBe(1);
  });

  it("renders as usual when the renderer works", () => {
    expect(renderOrPlain("x", (markdown) => `<b>${markdown}</b>`, escapeLt)).toBe("<b>x</b>");
  });

  it("turns lone surrogates into U+FFFD and keeps whole ones, for the renderer and the fallback alike", () => {
    expect(renderOrPlain("\uD83D😀\uDE00", (markdown) => markdown, escapeLt)).toBe(
      "\uFFFD😀\uFFFD",
    );
    expect(
      renderOrPlain(
        "a\uDE00",
        () => {
          throw new Error("broken");
        },
        escapeLt,
      ),
    ).toBe("a\uFFFD");
  });
});
