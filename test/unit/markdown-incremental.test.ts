import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IncrementalMarkdown } from "../../src/platforms/markdown/incremental.ts";
import {
  type LayoutContext,
  type MarkdownRendering,
  renderMarkdown,
} from "../../src/platforms/markdown/layout.ts";
import { MRKDWN } from "../../src/platforms/slack/format.ts";
import { TELEGRAM_HTML } from "../../src/platforms/telegram/format.ts";

/** Pieces of markdown that open, continue and close blocks, including the ones a later line can change. */
const PIECES = [
  "\n",
  "\n\n",
  "\n\n\n",
  " ",
  "  ",
  "    ",
  "\t",
  "word",
  "more text",
  "# ",
  "## ",
  "- ",
  "* ",
  "+ ",
  "1. ",
  "2) ",
  "> ",
  "```",
  "```ts",
  "~~~",
  "---",
  "===",
  "| a | b |",
  "|---|---|",
  "**",
  "_",
  "~~",
  "`",
  "[a](https://x.example)",
  "[a][r]",
  "[r]: https://r.example",
  "[^1]",
  "[^1]: note",
  "<div>",
  "</div>",
  "<!--",
  "-->",
  "<https://a.example>",
  "<@U123>",
  "&",
  "<b>",
  "- [ ] ",
  "- [x] ",
  "\uE000",
  "\uD83D",
  "\r\n",
] as const;

const markdown = fc
  .array(fc.constantFrom(...PIECES), { maxLength: 40 })
  .map((pieces) => pieces.join(""));

/** What a list item's line may start with: markers alike and not, indented, or what a marker can be mistaken for. */
const ITEM_STARTS = [
  "- ",
  "-",
  "* ",
  "+ ",
  "1. ",
  "2. ",
  "10. ",
  "3) ",
  "  - ",
  " - ",
  "    ",
  "  ",
  "- - -",
  "---",
  "> ",
  "",
] as const;

/** What follows on an item's line: text, formatting, code and breaks that may make the list loose or end it. */
const ITEM_TEXT = [
  "word",
  "**bold** text",
  "`code`",
  "```",
  "[ ] ",
  "[x] ",
  "\n",
  "\n\n",
  "",
] as const;

/** Answers that are mostly lists, tight and loose, nested and not, ended and not: the lines a list is cut between. */
const lists = fc
  .array(fc.tuple(fc.constantFrom(...ITEM_STARTS), fc.constantFrom(...ITEM_TEXT)), {
    maxLength: 16,
  })
  .map((lines) => lines.map(([start, text]) => `${start}${text}`).join("\n"));

/**
 * Several answers streamed through one renderer, interleaved: each shares a
 * beginning with the others (so one answer's kept blocks meet another's
 * different continuation) and is rendered at growing prefixes, as edits.
 */
const streams = fc
  .tuple(
    fc.oneof(markdown, lists),
    fc.array(
      fc.tuple(fc.oneof(markdown, lists), fc.array(fc.nat(), { minLength: 1, maxLength: 6 })),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    fc.nat(),
  )
  .map(([common, answers, seed]) => {
    const edits = answers.map(([rest, cuts]) => {
      const text = common + rest;
      const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
      return [...points.map((point) => text.slice(0, point)), text];
    });
    // Interleave the answers' edits in an order the seed picks, each answer's in order.
    const order: string[] = [];
    let turn = seed;
    while (edits.some((list) => list.length > 0)) {
      const open = edits.filter((list) => list.length > 0);
      const list = open[turn++ % open.length] as string[];
      order.push(list.shift() as string);
    }
    return order;
  });

// Each rendering with its own context type, seen as the shared one (its `begin` builds the rest).
const RENDERINGS = [
  ["Telegram HTML", TELEGRAM_HTML],
  ["Slack mrkdwn", MRKDWN],
] as unknown as readonly (readonly [string, MarkdownRendering<LayoutContext>])[];

describe.each(RENDERINGS)("IncrementalMarkdown (%s)", (_, rendering) => {
  it("renders every prefix of streamed answers exactly as a whole render does", () => {
    fc.assert(
      fc.property(streams, (edits) => {
        const stream = new IncrementalMarkdown(rendering);
        for (const text of edits) {
          expect(stream.render(text)).toBe(renderMarkdown(text, rendering));
        }
      }),
      { numRuns: 250 },
    );
  });

  it("keeps the finished blocks and parses only the tail once a block is settled", () => {
    const stream = new IncrementalMarkdown(rendering);
    const intro = "# Plan\n\nFirst, the tests.\n\n";
    expect(stream.render(`${intro}Then`)).toBe(renderMarkdown(`${intro}Then`, rendering));
    // A list item after the kept paragraphs, then a loose list: both as a whole render shows them.
    for (const tail of ["- one", "- one\n\n- two", "- one\n\n- two\n\nDone."]) {
      expect(stream.render(intro + tail)).toBe(renderMarkdown(intro + tail, rendering));
    }
  });

  it("renders a long list item by item exactly as a whole render does, tight or made loose", () => {
    const stream = new IncrementalMarkdown(rendering);
    const items = Array.from({ length: 6 }, (_, i) => `- Step ${i + 1}: **take** the \`message\``);
    const numbered = items.map((item, i) => item.replace("- ", `${i + 3}. `));
    for (const list of [items, numbered]) {
      for (const ending of [
        "",
        "\n\n- loose now",
        "\n  go on in the item",
        "\n* another list",
        "\n\nDone.",
      ]) {
        const answer = `Intro.\n\n${list.join("\n")}${ending}`;
        for (let at = 1; at <= answer.length; at += 7) {
          const text = answer.slice(0, at);
          expect(stream.render(text)).toBe(renderMarkdown(text, rendering));
        }
        expect(stream.render(answer)).toBe(renderMarkdown(answer, rendering));
      }
    }
  });

  it("renders what follows a list with an open fence or HTML block, or indented code, as a whole render does", () => {
    // A fence open in a list item keeps the blank lines after it only when more of the item
    // follows; micromark reads a list item after indented code as it would not alone.
    for (const [other, answer] of [
      ["- ```\n\n\nword", "- ```\n\n\n"],
      ["- ```\n    \n\n[a](https://x.example)", "- ```\n    \n\n"],
      ["* ```\n\n\n\n-", "* ```\n\n\n\n-word"],
      ["    word\n  \n\n>", "    word\n  \n\n> 2) "],
      // An HTML comment open in a list item keeps both blank lines when a list follows, one when text does.
      ["+ <!--\n\n- word", "+ <!--\n\n[^1]"],
      ["+ <!--\n\n- word", "+ <!--\n\nword"],
    ] as const) {
      const stream = new IncrementalMarkdown(rendering);
      stream.render(other);
      expect(stream.render(answer)).toBe(renderMarkdown(answer, rendering));
    }
  });

  it("stays within its budget of kept text", () => {
    const stream = new IncrementalMarkdown(rendering, 200);
    for (let i = 0; i < 50; i++) {
      const text = `Paragraph ${i} ${"x".repeat(40)}\n\nNext ${i}\n\nLast`;
      expect(stream.render(text)).toBe(renderMarkdown(text, rendering));
    }
  });
});
