import fc from "fast-check";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { mayHoldLiteralLink } from "../../src/platforms/markdown/gfm-constructs.ts";
import { parseMarkdown } from "../../src/platforms/markdown/parse.ts";
import { markdownArb } from "../fakes/telegram-markdown.ts";

/** Pieces of literal links and tables, whole and broken, escaped and written as character references, amid other syntax. */
const PIECES = [
  "www.x.example",
  "www\\.x.example",
  "WWW.X.EXAMPLE",
  "http://a.example/p?q=1",
  "HTTPS://A.EXAMPLE",
  "h&#116;tp://a.example",
  "&#x77;ww.x.example",
  "a@b.example",
  "mailto:a@b.example",
  "xmpp:a@b.example/r",
  "&#64;",
  "&commat;",
  "b.example",
  "w",
  "ww",
  "http",
  "s://",
  "\\",
  ".",
  "@",
  "[a](",
  ")",
  "<",
  ">",
  "`",
  "**",
  "_",
  " ",
  "\n",
  "\n\n",
  "- ",
  "> ",
  "word",
  "a_b_c",
  "foo*bar*",
  "~~",
  "[^1]",
  "[ ] ",
  "| a | b |\n|---|---|\n",
  "```",
  "<div>",
  "a b",
  ":-",
  "-:",
  ":-:",
  "---",
  " - ",
  "| a |",
  "\\|",
] as const;

const markdown = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((pieces) => pieces.join("")),
  markdownArb,
);

/** GFM's whole tree, the literal link transform always run: what parseMarkdown must give. */
function fullGfm(source: string) {
  return fromMarkdown(source, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

describe("parseMarkdown's literal links and tables", () => {
  it("looks for literal links and tables only where the text may hold one, and so gives GFM's tree, always", () => {
    fc.assert(
      fc.property(markdown, (source) => {
        expect(parseMarkdown(source).tree).toEqual(fullGfm(source));
      }),
      { numRuns: 1500 },
    );
  });

  it("links a literal address, an escaped one and one written with a character reference", () => {
    for (const source of ["see www.x.example", "see www\\.x.example", "mail a&#64;b.example"]) {
      expect(mayHoldLiteralLink(source)).toBe(true);
      const links = JSON.stringify(parseMarkdown(source).tree).match(/"type":"link"/g);
      expect(links).toHaveLength(1);
    }
  });

  it("finds a table of one column written without a pipe", () => {
    const { tree } = parseMarkdown("Step\n:-\nfirst");
    expect(tree.children.map((node) => node.type)).toEqual(["table"]);
  });

  it("skips the search in prose without an address", () => {
    expect(mayHoldLiteralLink("## Plan\n\n- Step 1: the worker takes the **message**.")).toBe(
      false,
    );
  });
});

/** Characters of a plain line and the ones just past it: markers, a tab, a no-break space, a line ending. */
const LINE_PIECES = [
  "Sure",
  "é",
  "ß",
  "7",
  " ",
  "  ",
  ",",
  ".",
  ":",
  "!",
  "?",
  "'",
  '"',
  "(",
  ")",
  "%",
  "/",
  "=",
  "+",
  "-",
  "*",
  "_",
  "`",
  "[",
  "<",
  "#",
  "|",
  "~",
  "\\",
  "&",
  "@",
  "\t",
  "\u00A0",
  "\n",
  "1.",
  "😀",
  "…",
  "—",
  "’",
  "\u200D",
  "\u2003",
  "\u2028",
  "\u0085",
  "*a*",
  "_a_",
  "`a`",
  "~~a~~",
  "[a]",
  "<a>",
] as const;

describe("parseMarkdown's plain lines", () => {
  it("builds a line of plain words as the tree GFM's parser gives, positions and all", () => {
    // Mostly plain words, so that the odd character comes at every place of a line that is otherwise plain.
    const piece = fc.oneof(
      { arbitrary: fc.constantFrom("Sure", "it", "é", " ", ",", "…"), weight: 3 },
      { arbitrary: fc.constantFrom(...LINE_PIECES), weight: 1 },
    );
    const line = fc.array(piece, { minLength: 1, maxLength: 12 }).map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(line, (source) => {
        expect(parseMarkdown(source).tree).toEqual(fullGfm(source));
      }),
      { numRuns: 3000 },
    );
  });
});
