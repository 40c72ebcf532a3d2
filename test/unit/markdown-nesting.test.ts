import fc from "fast-check";
import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { boundNesting, MAX_NESTING } from "../../src/platforms/markdown/nesting.ts";
import { deepMarkdown } from "../fakes/deep-markdown.ts";
import { markdownArb } from "../fakes/telegram-markdown.ts";

/** The parser itself, without the bound, to check what the bound hands it. */
const parse = (markdown: string) =>
  fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

/** How many quotes and list items nest at the deepest point of the tree. */
function containerDepth(tree: Nodes): number {
  let deepest = 0;
  const pending: [Nodes, number][] = [[tree, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, outer] = next;
    const depth = outer + (node.type === "blockquote" || node.type === "listItem" ? 1 : 0);
    deepest = Math.max(deepest, depth);
    if ("children" in node) for (const child of node.children) pending.push([child, depth]);
  }
  return deepest;
}

/** What a person reads, whatever the nesting: the input without markers, digits and whitespace. */
const words = (markdown: string) => markdown.replace(/[\s>*+\-.)\d]/g, "");

/** Bounds `markdown` to `max` levels, checks the parser sees no more and every word is kept. */
function boundedWithin(markdown: string, max: number): string {
  const bounded = boundNesting(markdown, max);
  expect(containerDepth(parse(bounded))).toBeLessThanOrEqual(max);
  expect(words(bounded)).toBe(words(markdown));
  return bounded;
}

/**
 * Short lines of container markers, tabs and spaces: where the scanner's
 * reading of columns, empty items and a paragraph's rule for lists must
 * agree with micromark's, line by line.
 */
const containerLines = fc
  .array(
    fc.constantFrom(
      "> ",
      ">",
      "- ",
      "* ",
      "1. ",
      "2) ",
      "10. ",
      "\t",
      " ",
      "  ",
      "x",
      "\n",
      "\n\n",
    ),
    { maxLength: 30 },
  )
  .map((pieces) => pieces.join(""));

/** Each found by a property on a rare seed: the bound handed micromark one level too many. */
const FOUND = [
  // Dropped quotes moved a tab to a column where it is narrower: indented code became a quote.
  ["> > \t> ", 1],
  // A container takes only part of a tab; the rest still counts.
  ["1. - \n\t > > ", 3],
  ["> >\t> > ", 3],
  // A list after a table's rows: a table is no paragraph, any list may start in it.
  ["| a | b |\n|---|---|\n| 1 | 2 |\nword---\n2) 2) ", 1],
  [`| a |\n|---|\n${"2) ".repeat(10)}x`, 4],
  // An indented item written without its indentation is narrower; a line it left outside fell in.
  ["  1. \n\t> ", 1],
  ["word- item 0\n  - item 1\n    - item 2- item 0\n  - item 1", 1],
  // With its quote dropped, the item would be empty, and an empty item is narrower.
  ["2)   > \n\t> ", 1],
  // The paragraph's rule kept `* ` from opening a list; written at the item's level it is not held.
  ["- x\n\t> * ", 1],
  // A setext underline ends its paragraph: the list after it is not held to the paragraph's rule.
  ["| a |\r\n==\r\n> 1. ", 1],
  ["a\n-\n> 1. ", 1],
] as const;

describe("boundNesting", () => {
  it("keeps 2,000 nested quotes' text, quoted 16 deep", () => {
    expect(boundNesting(`${"> ".repeat(2000)}deep text`)).toBe(`${"> ".repeat(16)}deep text`);
    expect(MAX_NESTING).toBe(16);
  });

  it("lists the items of a list nested too deep at its deepest level kept, each still an item", () => {
    const list = Array.from({ length: 6 }, (_, i) => `${"  ".repeat(i)}- item ${i}`).join("\n");
    expect(boundNesting(list, 3)).toBe(
      "- item 0\n  - item 1\n    - item 2\n    - item 3\n    - item 4\n    - item 5",
    );
    expect(boundNesting("1. - > 2. - > deep", 3)).toBe("1. - > deep");
  });

  it("moves a deep item's further paragraphs and code up with it", () => {
    const markdown = "- - - - a\n\n        more\n\n        ```\n          code\n        ```";
    expect(boundNesting(markdown, 2)).toBe("- - a\n\n    more\n\n    ```\n      code\n    ```");
  });

  it("leaves code blocks, indented code and rules as written, however many markers they hold", () => {
    const deep = "> ".repeat(40);
    for (const markdown of [
      `\`\`\`\n${deep}code\n\`\`\``,
      `    ${deep}indented code`,
      "~~~~\n```\n- - - - - - - -\n```\n~~~~",
      "- - - - - - - - - -",
    ]) {
      expect(boundNesting(markdown, 3)).toBe(markdown);
    }
  });

  it("property: leaves markdown nested no deeper than the limit exactly as written", () => {
    fc.assert(
      fc.property(markdownArb, (markdown) => {
        const depth = containerDepth(parse(markdown));
        fc.pre(depth <= 12);
        // A line the scanner is unsure of counts a container too many: leave it room.
        expect(boundNesting(markdown, depth + 4)).toBe(markdown);
      }),
      { numRuns: 200 },
    );
  });

  it("property: what it hands the parser nests no deeper than the limit, and keeps every word", () => {
    fc.assert(
      fc.property(deepMarkdown, fc.integer({ min: 1, max: 20 }), (markdown, max) => {
        boundedWithin(markdown, max);
      }),
      { numRuns: 100 },
    );
  });

  it.each(FOUND)("hands the parser %j nested no deeper than %i", (markdown, max) => {
    boundedWithin(markdown, max);
  });

  it("leaves what micromark reads as text as written: a list after indented code, or in a quote opened on a paragraph's next line", () => {
    for (const markdown of ["\t> \n2) > > > > ", "    a\n\n2) > > > > x", "x\n> 2) > > > > "]) {
      expect(containerDepth(parse(markdown))).toBeLessThanOrEqual(1);
      expect(boundNesting(markdown, 3)).toBe(markdown);
    }
  });

  it("property: lines of markers, tabs and spaces nest no deeper than the limit, and are left alone within it", () => {
    fc.assert(
      fc.property(containerLines, fc.integer({ min: 1, max: 4 }), (markdown, max) => {
        const bounded = boundedWithin(markdown, max);
        const depth = containerDepth(parse(markdown));
        if (depth <= max) expect(bounded).toBe(markdown);
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses a limit below one level", () => {
    expect(() => boundNesting("x", 0)).toThrow(/at least 1/);
  });
});
