import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml, toTelegramHtml } from "../../src/platforms/telegram/format.ts";
import {
  showsText,
  splitTelegramHtml,
  visibleLength,
  visibleText,
} from "../../src/platforms/telegram/html-split.ts";
import { renderParts, TELEGRAM_TEXT_LIMIT } from "../../src/platforms/telegram/outbound.ts";
import { parseTelegramHtml, type TelegramEntity } from "../../src/testing/fakes/telegram-html.ts";
import { markdownArb } from "../fakes/telegram-markdown.ts";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Each visible character with the entities covering it, as Telegram would format it. */
function styled(html: string): string[] {
  const { text, entities } = parseTelegramHtml(html, { trim: false });
  const chars = text.split("");
  return chars.map((char, i) => {
    const on = entities
      .filter((e: TelegramEntity) => e.offset <= i && i < e.offset + e.length)
      .map((e) => `${e.type}${e.url ? `(${e.url})` : ""}${e.language ? `[${e.language}]` : ""}`)
      .sort();
    return `${char}${on.join(",")}`;
  });
}

/** Long formatted text: the markdown arbitrary, repeated so that it needs cutting. */
const longHtml = fc
  .array(markdownArb, { minLength: 1, maxLength: 6 })
  .map((parts) => toTelegramHtml(parts.join("\n\n")));

describe("splitTelegramHtml", () => {
  it("leaves HTML that fits alone", () => {
    expect(splitTelegramHtml("<b>short</b>", 4096)).toEqual(["<b>short</b>"]);
  });

  it("closes a code block at a cut and reopens it, language and all", () => {
    const code = Array.from({ length: 12 }, (_, i) => `line ${i} &lt; ${i + 1}`).join("\n");
    const parts = splitTelegramHtml(`<pre><code class="language-ts">${code}</code></pre>`, 100);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part).toMatch(/^<pre><code class="language-ts">[\s\S]*<\/code><\/pre>$/);
      expect(parseTelegramHtml(part).entities[0]).toMatchObject({ type: "pre", language: "ts" });
    }
  });

  it("cuts at a paragraph, then a line, then a word, before cutting hard", () => {
    const paragraphs = ["a".repeat(40), "b".repeat(40), "c".repeat(40)].join("\n\n");
    expect(splitTelegramHtml(paragraphs, 90)).toEqual([
      `${"a".repeat(40)}\n\n${"b".repeat(40)}\n\n`,
      "c".repeat(40),
    ]);
    expect(splitTelegramHtml("x".repeat(50), 20)).toEqual([
      "x".repeat(20),
      "x".repeat(20),
      "x".repeat(10),
    ]);
  });

  it("never cuts inside an entity, and counts it as the one character it shows", () => {
    const parts = splitTelegramHtml("&amp;".repeat(40), 16);
    expect(parts).toEqual(["&amp;".repeat(16), "&amp;".repeat(16), "&amp;".repeat(8)]);
    expect(visibleLength("&amp;&#128512;<b>x</b>")).toBe(4);
  });

  it("gives parts that each parse, fit, and together show the same text formatted the same way", () => {
    fc.assert(
      fc.property(longHtml, fc.integer({ min: 16, max: 400 }), (html, max) => {
        const parts = splitTelegramHtml(html, max);
        for (const part of parts) {
          expect(() => parseTelegramHtml(part, { trim: false })).not.toThrow();
          expect(visibleLength(part)).toBeLessThanOrEqual(max);
        }
        expect(parts.map(visibleText).join("")).toBe(visibleText(html));
        expect(parts.flatMap(styled)).toEqual(styled(html));
      }),
      { numRuns: 300 },
    );
  });

  it("never splits a surrogate pair", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 20, maxLength: 200 }), (text) => {
        const parts = splitTelegramHtml(escapeHtml(text), 16);
        for (const part of parts) expect(part).not.toMatch(LONE_SURROGATE);
        expect(parts.map(visibleText).join("")).toBe(text);
      }),
    );
  });
});

describe("renderParts", () => {
  it("gives Telegram messages that each parse and fit its 4,096 characters, none empty", () => {
    fc.assert(
      fc.property(markdownArb, fc.integer({ min: 1, max: 400 }), (markdown, repeat) => {
        const long = Array.from({ length: repeat }, () => markdown).join("\n\n");
        for (const part of renderParts(long)) {
          const parsed = parseTelegramHtml(part);
          expect(parsed.text.length).toBeGreaterThan(0);
          expect(parsed.text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
        }
      }),
      { numRuns: 60 },
    );
  });
});

/** Pieces of HTML that show something, nothing, or only whitespace, tags and entities among them. */
const HTML_PIECES = [
  "<b>",
  "</b>",
  '<a href="https://x.example/?a=1&amp;b=2">',
  "</a>",
  "<pre>",
  '<code class="language-ts">',
  "<br/>",
  "&amp;",
  "&lt;",
  "&#32;",
  "&#x20;",
  "&#10;",
  "&#0;",
  "&nbsp;",
  "&",
  "<",
  ">",
  " ",
  "\n",
  "\u00A0",
  "\u2003",
  "x",
] as const;

describe("showsText", () => {
  it("says whether the visible text has more than whitespace, as visibleText does", () => {
    const html = fc
      .array(fc.constantFrom(...HTML_PIECES), { maxLength: 12 })
      .map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(html, (part) => {
        expect(showsText(part)).toBe(/\S/.test(visibleText(part)));
      }),
      { numRuns: 2000 },
    );
  });
});
