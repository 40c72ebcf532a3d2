import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatResults, MAX_SEARCH_CHARS, plainText } from "../../src/tools/web/web-search.ts";

const result = fc.record({
  title: fc.string({ maxLength: 400 }),
  url: fc.oneof(
    fc.webUrl(),
    fc.constantFrom("https://dup.example/", "", "  https://spaced.example/  "),
  ),
  snippet: fc.string({ maxLength: 1_000 }),
});

describe("search results as the model reads them", () => {
  it("numbers results, one field a line, cut to size", () => {
    expect(
      formatResults("q", [
        { title: "  A   title ", url: "https://a.example/", snippet: "x".repeat(400) },
        { title: "", url: "https://untitled.example/", snippet: "" },
      ]),
    ).toBe(
      [
        '<untrusted source="web_search q">',
        "1. A title",
        "   https://a.example/",
        `   ${"x".repeat(299)}…`,
        "",
        "2. https://untitled.example/",
        "   https://untitled.example/",
        "</untrusted>",
      ].join("\n"),
    );
  });

  it("stays within its length, lists each URL once and whole, and numbers without gaps", () => {
    fc.assert(
      fc.property(fc.array(result, { maxLength: 40 }), (results) => {
        const text = formatResults("q", results);
        const [block = "", note] = text.split(/\n\n(?=\[\d+ more results left out for length\]$)/);
        const urls = new Set(results.map((r) => r.url.trim()).filter((u) => u !== ""));
        if (urls.size === 0) {
          expect(text).toBe('No results for "q". Try other words, or a broader query.');
          return;
        }
        const head = '<untrusted source="web_search q">\n';
        expect(block.startsWith(head) && block.endsWith("\n</untrusted>")).toBe(true);
        const listing = block.slice(head.length, -"\n</untrusted>".length);
        expect(listing.length).toBeLessThanOrEqual(MAX_SEARCH_CHARS);
        const blocks = listing.split(/\n\n(?=\d+\. )/);
        const shown = blocks.map((block, i) => {
          const [first = "", second = ""] = block.split("\n");
          expect(first.startsWith(`${i + 1}. `)).toBe(true);
          return second.slice(3);
        });
        expect(new Set(shown).size).toBe(shown.length);
        for (const url of shown) expect(urls.has(url)).toBe(true);
        expect(shown.length + (note === undefined ? 0 : Number(/\d+/.exec(note)?.[0]))).toBe(
          urls.size,
        );
      }),
    );
  });

  it("keeps the words of titles and snippets that carry markup and entities", () => {
    expect(
      plainText("<strong>Fast</strong> &amp; small &lt;3 &#39;quoted&#x27; &hellip;\n  done"),
    ).toBe("Fast & small <3 'quoted' &hellip; done");
    expect(plainText("&#0; &#x110000; &#65;")).toBe("&#0; &#x110000; A");
  });
});
