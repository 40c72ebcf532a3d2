import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toMrkdwn } from "../../src/platforms/slack/format.ts";
import { splitForSlack } from "../../src/platforms/slack/split.ts";
import { deepMarkdown } from "../fakes/deep-markdown.ts";

const ZWSP = "\u200B";
/** Slack's link and mention syntax, written independently of the code under test. */
const SLACK_TOKEN = /<(?:[@#][A-Z0-9]+|(?:https?|mailto):[^\s<>|]+)(?:\|[^<>\n]*)?>/g;
/** A quote marker: Slack reads one only at the very start of a line. */
const QUOTE_PREFIX = /^>(?: |$)/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Every < and > outside Slack's link syntax and a line's quote marker is escaped; every & starts an entity. */
function expectEscaped(mrkdwn: string): void {
  const bare = mrkdwn
    .replace(SLACK_TOKEN, "")
    .split("\n")
    .map((line) => line.replace(QUOTE_PREFIX, ""));
  for (const line of bare) expect(line).not.toMatch(/[<>]/);
  expect(mrkdwn).not.toMatch(/&(?!amp;|lt;|gt;)/);
}

const decodeEntities = (s: string) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** Characters CommonMark itself changes (NUL, CR) and the private-use ones the converter reserves. */
const verbatim = (s: string) => !/[\0\r\uE000-\uE005]/.test(s);

/** Markdown pieces, including the awkward ones; none starts an HTML block that never ends. */
const FRAGMENTS = [
  "word",
  "x",
  " ",
  "\n",
  "\n\n",
  "*",
  "**",
  "_",
  "__",
  "~~",
  "[",
  "]",
  "(",
  ")",
  "](https://e.com/a?b=1&c=2)",
  "](javascript:alert(1))",
  "<",
  ">",
  "&",
  "&amp;",
  "&lt;",
  "<@U123>",
  "<#C9|general>",
  "<https://e.com|a label>",
  "<https://e.com/x>",
  "<b>",
  "</b>",
  "<div>",
  "# ",
  "- ",
  "1. ",
  "> ",
  "|",
  "| a | b |\n|---|---|\n| 1 | 2 |",
  "---",
  "\\",
  "www.e.com",
  "a@b.co",
  "https://e.com",
  "    ",
  "\t",
  "[^1]",
  "[^1]: note",
  "[r]: https://r.e",
  "[r]",
  "- [ ] ",
  "![alt](https://i.png)",
  "中文",
];
const fragment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FRAGMENTS) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 4 }) },
);
const markdownish = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(""));
/** Text that makes no code block of its own and cannot swallow one: no indented code, no table (no "~~~" either, see below). */
const plainMarkdown = fc
  .array(fc.constantFrom(...FRAGMENTS.filter((f) => !/^ {4}|\t|\|---/.test(f))), {
    maxLength: 20,
  })
  .map((parts) => parts.join(""));

describe("toMrkdwn", () => {
  it("turns bold, italic and strikethrough into Slack's markers", () => {
    expect(toMrkdwn("**bold**, *it*, _it_ and ~~gone~~")).toBe("*bold*, _it_, _it_ and ~gone~");
  });

  it("nests italic inside bold and keeps a bold heading from closing early", () => {
    expect(toMrkdwn("**bold _and it_**")).toBe("*bold _and it_*");
    expect(toMrkdwn("# Heading with **bold**")).toBe("*Heading with bold*");
  });

  it("separates markers from letters with zero-width spaces, which Slack needs mid-word", () => {
    expect(toMrkdwn("hel**l**o")).toBe(`hel${ZWSP}*l*${ZWSP}o`);
  });

  it("keeps an image's link on one line when its alt text has a line break (fast-check found it)", () => {
    expect(toMrkdwn("![~~~\n](https://e.com/a?b=1&c=2)")).toBe(
      "<https://e.com/a?b=1&amp;c=2|~~~ >",
    );
  });

  it("turns a heading into a bold line", () => {
    expect(toMrkdwn("## Result\n\nDone.")).toBe("*Result*\n\nDone.");
  });

  it("writes links as <url|text> and keeps a bare address bare", () => {
    expect(toMrkdwn("see [the PR](https://github.com/o/r/pull/1) or <https://e.com>")).toBe(
      "see <https://github.com/o/r/pull/1|the PR> or <https://e.com>",
    );
    expect(toMrkdwn("[docs][d]\n\n[d]: https://docs.e.com")).toBe("<https://docs.e.com|docs>");
    expect(toMrkdwn("mail a@b.co")).toBe("mail <mailto:a@b.co|a@b.co>");
  });

  it("escapes what would break the link: spaces, bars, brackets and ampersands in the address", () => {
    expect(toMrkdwn("[a](<https://e.com/a b|c>) [q](https://e.com/?x=1&y=2)")).toBe(
      "<https://e.com/a%20b%7Cc|a> <https://e.com/?x=1&amp;y=2|q>",
    );
  });

  it("keeps only the text of a link that is not http, https or mailto", () => {
    expect(toMrkdwn("[click](javascript:alert(1)) [rel](/docs)")).toBe("click rel");
  });

  it("writes bullet lists with • and nested ones with ◦, keeping numbers", () => {
    expect(toMrkdwn("- one\n- two\n  - inner\n\n1. first\n2. second")).toBe(
      "• one\n• two\n  ◦ inner\n\n1. first\n2. second",
    );
    expect(toMrkdwn("- [ ] todo\n- [x] done")).toBe("• [ ] todo\n• [x] done");
  });

  it("quotes block quotes line by line", () => {
    expect(toMrkdwn("> one\n> two\n\nafter")).toBe("> one\n> two\n\nafter");
  });

  it("escapes a quote's > where Slack shows it as text: in a list item, in a quote", () => {
    // The counterexample fast-check found (seed -1049006621).
    expect(toMrkdwn("1. - > ")).toBe("1. ◦ &gt;");
    expect(toMrkdwn("- > quoted\n\n  > more")).toBe("• &gt; quoted\n\n  &gt; more");
    expect(toMrkdwn("[^1]: > noted")).toBe("[1] &gt; noted");
  });

  it("flattens a quote inside a quote, which Slack cannot nest", () => {
    expect(toMrkdwn("> outer\n> > inner")).toBe("> outer\n>\n> inner");
  });

  it("answers markdown nested 2,000 quotes deep with the quoted text", () => {
    expect(toMrkdwn(`${"> ".repeat(2000)}deep text`)).toBe("> deep text");
    expect(toMrkdwn(`${"- ".repeat(2000)}deep text`)).toBe(`• ◦ ▪${" ▪".repeat(13)} deep text`);
  });

  it("lays out a list nested 400 levels deep with every item, indented no more than 16 levels", () => {
    const list = Array.from({ length: 400 }, (_, i) => `${"  ".repeat(i)}- item ${i}`).join("\n");
    const lines = toMrkdwn(list).split("\n");
    expect(lines).toHaveLength(400);
    lines.forEach((line, i) => {
      expect(line.trim()).toBe(`${i === 0 ? "•" : i === 1 ? "◦" : "▪"} item ${i}`);
      expect(line.length - line.trimStart().length).toBeLessThanOrEqual(2 * 15);
    });
  });

  it("escapes &, < and > as Slack requires", () => {
    expect(toMrkdwn("a < b && c > d <b>bold</b>")).toBe(
      "a &lt; b &amp;&amp; c &gt; d &lt;b&gt;bold&lt;/b&gt;",
    );
  });

  it("keeps Slack mentions and links the model wrote", () => {
    expect(toMrkdwn("ask <@U123> in <#C42|general>, see <https://e.com|the page>")).toBe(
      "ask <@U123> in <#C42|general>, see <https://e.com|the page>",
    );
    expect(toMrkdwn("**<@U123>**")).toBe("*<@U123>*");
  });

  it("escapes special mentions, so an answer never pages a whole channel", () => {
    expect(toMrkdwn("<!here> <!channel> <!everyone>")).toBe(
      "&lt;!here&gt; &lt;!channel&gt; &lt;!everyone&gt;",
    );
  });

  it("leaves code unconverted and escapes it, so it reads as written", () => {
    expect(toMrkdwn("`**x** <@U1>` and\n\n```ts\nconst a = **b** < c && d;\n```")).toBe(
      "`**x** &lt;@U1&gt;` and\n\n```\nconst a = **b** &lt; c &amp;&amp; d;\n```",
    );
    expect(toMrkdwn("`map<string,string>`")).toBe("`map&lt;string,string&gt;`");
  });

  it("keeps a code block inside a list item unindented", () => {
    expect(toMrkdwn("- step\n\n  ```\n  npm i\n  ```")).toBe("• step\n\n  ```\nnpm i\n```");
  });

  it("breaks a run of backticks inside code so Slack's block does not end early", () => {
    expect(toMrkdwn("````\n```\n````")).toBe(`\`\`\`\n\`${ZWSP}\`${ZWSP}\`\n\`\`\``);
  });

  it("renders a table as aligned text in a code block", () => {
    expect(toMrkdwn("| tool | state |\n|---|---|\n| web_search | **on** |")).toBe(
      "```\ntool       | state\n---------- | -----\nweb_search | on\n```",
    );
  });

  it("property: code blocks read exactly as written", () => {
    const codeLine = fc.string({ unit: "grapheme", maxLength: 30 });
    fc.assert(
      fc.property(
        plainMarkdown,
        fc.array(codeLine, { maxLength: 8 }),
        fc.constantFrom("", "ts", "python"),
        plainMarkdown,
        (before, lines, lang, after) => {
          const code = lines.join("\n");
          fc.pre(!code.includes("```") && verbatim(code));
          // "~~" twice is a tilde fence of its own.
          fc.pre(!`${before}\n${after}`.includes("~~~"));
          const out = toMrkdwn(`${before}\n\n\`\`\`${lang}\n${code}\n\`\`\`\n\n${after}`);
          const blocks = [...out.matchAll(/```\n([\s\S]*?)\n```/g)].map((m) => m[1] ?? "");
          expect(blocks.map(decodeEntities)).toContain(code);
          if (!/[&<>]/.test(code)) expect(out).toContain(`\`\`\`\n${code}\n\`\`\``);
        },
      ),
    );
  });

  it("property: code spans read exactly as written", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }), (code) => {
        fc.pre(!/[`\n]/.test(code) && verbatim(code) && code.trim() !== "");
        fc.pre(!(code.startsWith(" ") && code.endsWith(" ")));
        const out = toMrkdwn(`say \`${code}\` now`);
        expect(out.startsWith("say `") && out.endsWith("` now")).toBe(true);
        expect(decodeEntities(out.slice(5, -5))).toBe(code);
      }),
    );
  });

  it("property: no raw < or > outside Slack's link syntax and quote markers", () => {
    fc.assert(
      fc.property(markdownish, (markdown) => {
        const out = toMrkdwn(markdown);
        const bare = out
          .replace(SLACK_TOKEN, "")
          .split("\n")
          .map((line) => line.replace(QUOTE_PREFIX, ""));
        for (const line of bare) expect(line).not.toMatch(/[<>]/);
      }),
      { numRuns: 500 },
    );
  });

  it("property: every & starts an entity", () => {
    fc.assert(
      fc.property(markdownish, (markdown) => {
        expect(toMrkdwn(markdown)).not.toMatch(/&(?!amp;|lt;|gt;)/);
      }),
      { numRuns: 300 },
    );
  });

  it("property: never throws, however deep or broken the markdown, and escapes what it returns", () => {
    fc.assert(
      fc.property(deepMarkdown, (markdown) => {
        const mrkdwn = toMrkdwn(markdown);
        expectEscaped(mrkdwn);
        expect(mrkdwn).not.toMatch(LONE_SURROGATE);
        for (const chunk of splitForSlack(mrkdwn)) {
          for (const section of chunk.sections) expect(section.length).toBeLessThanOrEqual(3000);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe("splitForSlack", () => {
  const word = fc.constantFrom("alpha", "beta", "gamma", "δέλτα", "&amp;", "x", "42.", "end.");
  const token = fc.constantFrom("<https://e.com/p|a long link label>", "<@U123>", "<#C1|general>");
  const line = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.array(fc.oneof(word, token), { maxLength: 14 }).map((w) => w.join(" ")),
    },
    { weight: 1, arbitrary: fc.constantFrom("```", "", "• item") },
  );

  it("property: sections and messages fit, fences balance, tokens stay whole, nothing is lost", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 120 }),
        fc.integer({ min: 200, max: 800 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        (lines, maxChars, factor, maxSections) => {
          const text = lines.join("\n");
          const maxMessage = maxChars * factor;
          const chunks = splitForSlack(text, { maxChars, maxMessage, maxSections });
          const balanced = lines.filter((l) => l.startsWith("```")).length % 2 === 0;
          for (const chunk of chunks) {
            expect(chunk.sections.length).toBeGreaterThan(0);
            expect(chunk.sections.length).toBeLessThanOrEqual(maxSections);
            expect(chunk.text.length).toBeLessThanOrEqual(maxMessage);
            expect(chunk.text).toBe(chunk.sections.join(""));
            for (const section of chunk.sections) {
              expect(section.length).toBeLessThanOrEqual(maxChars);
              expect(section.replace(SLACK_TOKEN, "")).not.toMatch(/[<>]/);
              if (balanced) expect((section.match(/^\s*```/gm) ?? []).length % 2).toBe(0);
            }
          }
          const strip = (s: string) => s.replace(/```[^\n]*/g, "").replace(/\s+/g, "");
          expect(chunks.map((c) => strip(c.text)).join("")).toBe(strip(text));
        },
      ),
    );
  });

  it("sends a 10,000-character answer as one message of sections within 3000 characters", () => {
    const paragraph = `Some **findings** about [the service](https://e.com/s) & its <limits>. ${"More detail follows here. ".repeat(20)}`;
    const code = `\`\`\`ts\n${"const value = compute(a < b);\n".repeat(40)}\`\`\``;
    const markdown = [paragraph, code, paragraph, paragraph, code, paragraph, paragraph].join(
      "\n\n",
    );
    const mrkdwn = toMrkdwn(`${markdown}\n\n${markdown}`);
    expect(mrkdwn.length).toBeGreaterThan(10_000);
    const chunks = splitForSlack(mrkdwn);
    expect(chunks).toHaveLength(1);
    const [chunk] = chunks;
    expect(chunk?.sections.length).toBeGreaterThanOrEqual(4);
    for (const section of chunk?.sections ?? []) {
      expect(section.length).toBeLessThanOrEqual(3000);
      expect((section.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
  });

  it("refuses a message limit below the section limit", () => {
    expect(() => splitForSlack("x", { maxChars: 3000, maxMessage: 100 })).toThrow(/maxMessage/);
  });
});
