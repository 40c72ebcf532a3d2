import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml, toTelegramHtml } from "../../src/platforms/telegram/format.ts";
import { splitTelegramHtml, visibleLength } from "../../src/platforms/telegram/html-split.ts";
import { renderParts } from "../../src/platforms/telegram/outbound.ts";
import { parseTelegramHtml } from "../../src/testing/fakes/telegram-html.ts";
import { deepMarkdown } from "../fakes/deep-markdown.ts";
import { markdownArb } from "../fakes/telegram-markdown.ts";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("toTelegramHtml", () => {
  it("renders the model's usual markdown as Telegram's tags", () => {
    expect(
      toTelegramHtml("## Result\n**Done**, see [the PR](https://github.com/o/r/pull/1) & `a<b`."),
    ).toBe(
      '<b>Result</b>\n\n<b>Done</b>, see <a href="https://github.com/o/r/pull/1">the PR</a> &amp; <code>a&lt;b</code>.',
    );
    expect(toTelegramHtml("*it* and ~~gone~~")).toBe("<i>it</i> and <s>gone</s>");
    expect(toTelegramHtml("- a\n- b\n  - c\n\n3. x\n4. y")).toBe("• a\n• b\n  ◦ c\n\n3. x\n4. y");
    expect(toTelegramHtml("> quoted **bold**")).toBe("<blockquote>quoted <b>bold</b></blockquote>");
  });

  it("keeps code blocks as <pre><code> with their language, and code spans out of other formatting", () => {
    expect(toTelegramHtml("```python\nprint(1 < 2)\n```")).toBe(
      '<pre><code class="language-python">print(1 &lt; 2)</code></pre>',
    );
    expect(toTelegramHtml("```\nplain\n```")).toBe("<pre>plain</pre>");
    expect(toTelegramHtml("**bold `code` bold**")).toBe(
      "<b>bold </b><code>code</code><b> bold</b>",
    );
    expect(toTelegramHtml("[see `x`](https://x.y)")).toBe('<a href="https://x.y">see x</a>');
  });

  it("shows raw HTML and unsafe links as written text, never as markup", () => {
    expect(toTelegramHtml("<b>not bold</b>")).toBe("&lt;b&gt;not bold&lt;/b&gt;");
    expect(toTelegramHtml("[click](javascript:alert(1))")).toBe("click");
    expect(toTelegramHtml('[q](https://x.y/?a="b")')).toBe(
      '<a href="https://x.y/?a=&quot;b&quot;">q</a>',
    );
  });

  it("flattens a quote inside a quote, which Telegram cannot nest", () => {
    expect(toTelegramHtml("> outer\n> > inner")).toBe("<blockquote>outer\n\ninner</blockquote>");
  });

  it("answers markdown nested 2,000 quotes or list items deep with its text", () => {
    expect(toTelegramHtml(`${"> ".repeat(2000)}deep text`)).toBe(
      "<blockquote>deep text</blockquote>",
    );
    expect(toTelegramHtml(`${"1. ".repeat(2000)}deep text`)).toBe(`${"1. ".repeat(16)}deep text`);
  });

  it("lays out a list nested 400 levels deep with every item, indented no more than 16 levels", () => {
    const list = Array.from({ length: 400 }, (_, i) => `${"  ".repeat(i)}- item ${i}`).join("\n");
    const html = toTelegramHtml(list);
    const lines = parseTelegramHtml(html).text.split("\n");
    expect(lines).toHaveLength(400);
    lines.forEach((line, i) => {
      expect(line.trim()).toBe(`${i === 0 ? "•" : i === 1 ? "◦" : "▪"} item ${i}`);
      expect(line.length - line.trimStart().length).toBeLessThanOrEqual(2 * 15);
    });
  });

  it("turns a lone surrogate (half an emoji) into U+FFFD, since Telegram refuses text that is not UTF-8", () => {
    expect(toTelegramHtml("cut \uD83D here")).toBe("cut \uFFFD here");
  });

  it("property: never throws, however deep or broken the markdown, and every part is HTML Telegram takes", () => {
    fc.assert(
      fc.property(deepMarkdown, (markdown) => {
        const html = toTelegramHtml(markdown);
        expect(html).not.toMatch(LONE_SURROGATE);
        for (const part of splitTelegramHtml(html, 4096)) {
          expect(() => parseTelegramHtml(part, { trim: false })).not.toThrow();
          expect(visibleLength(part)).toBeLessThanOrEqual(4096);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("lines a table up in a <pre> block when that keeps it no longer than its markdown", () => {
    expect(toTelegramHtml("| a | b |\n|---|---|\n| 1 | 22222 |")).toBe(
      "<pre>a   | b\n--- | -----\n1   | 22222</pre>",
    );
    const ragged = `|x|y|\n|-|-|\n|${"long".repeat(10)}|z|\n|a|b|\n|c|d|\n|e|f|`;
    expect(toTelegramHtml(ragged)).toBe(
      `<pre>x | y\n${"long".repeat(10)} | z\na | b\nc | d\ne | f</pre>`,
    );
  });

  it("always produces HTML Telegram parses, whatever the markdown", () => {
    fc.assert(
      fc.property(markdownArb, (markdown) => {
        expect(() => parseTelegramHtml(toTelegramHtml(markdown), { trim: false })).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });

  it("shows a code block's text exactly as written", () => {
    const line = fc.string({ minLength: 1, maxLength: 30 }).filter((l) => !/[`~\r\n]/.test(l));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => {
        const code = lines.join("\n");
        const parsed = parseTelegramHtml(toTelegramHtml(`\`\`\`\n${code}\n\`\`\``), {
          trim: false,
        });
        expect(parsed.text).toBe(code);
        expect(parsed.entities).toEqual([{ type: "pre", offset: 0, length: code.length }]);
      }),
    );
  });

  it("shows plain prose with <, > and & exactly as written, without entities", () => {
    // A word starts with a letter: a line starting with ">" or "-" would be markdown syntax.
    const word = fc.stringMatching(/^[A-Za-z][A-Za-z<>&"'?!,]{0,7}$/);
    const lineArb = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(" "));
    fc.assert(
      fc.property(fc.array(lineArb, { minLength: 1, maxLength: 4 }), (lines) => {
        const text = lines.join("\n");
        const parsed = parseTelegramHtml(toTelegramHtml(text));
        expect(parsed.text).toBe(text);
        expect(parsed.entities).toEqual([]);
      }),
    );
  });
});

describe("escapeHtml", () => {
  it("sends half an emoji as U+FFFD, even when an answer goes unconverted", () => {
    expect(escapeHtml("```\uDE00 <")).toBe("```\uFFFD &lt;");
    expect(renderParts("```\uDE00")).toEqual(["```\uFFFD"]);
  });

  it("makes any text show as written", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 60 }), (text) => {
        expect(parseTelegramHtml(escapeHtml(text), { trim: false }).text).toBe(text);
      }),
    );
  });
});
