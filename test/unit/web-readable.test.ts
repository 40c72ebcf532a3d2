import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readCapped } from "../../src/tools/web/capped-body.ts";
import { FetchError, FetchRefusedError } from "../../src/tools/web/errors.ts";
import { fetchTarget } from "../../src/tools/web/fetch-target.ts";
import {
  type PageKind,
  pageKind,
  parseMediaType,
  readablePage,
} from "../../src/tools/web/readable.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const html = (text: string) => readablePage(bytes(text), parseMediaType("text/html"), "html");

describe("reading a page as text", () => {
  it("turns HTML into markdown with the title apart, links and lists kept", () => {
    expect(
      html(
        '<html><head><title>Release &amp; notes</title></head><body><h2>v2</h2><p>See <a href="https://x.example/log">the log</a>.</p><ol><li>fast</li><li>small</li></ol></body></html>',
      ),
    ).toEqual({
      title: "Release & notes",
      text: "## v2\n\nSee [the log](https://x.example/log).\n\n1. fast\n2. small",
    });
  });

  it("drops scripts, styles, menus and frames", () => {
    const page = html(
      "<nav><a href='/'>Home</a> <a href='/about'>About</a></nav><style>p{}</style><script>track()</script><noscript>enable JS</noscript><iframe src='ad'></iframe><svg><text>logo</text></svg><p>content</p>",
    );
    expect(page).toEqual({ text: "content" });
  });

  it("keeps the body of a page that never closes its head", () => {
    expect(html("<head><meta charset=utf-8><title>T</title><p>still here</p>")).toEqual({
      title: "T",
      text: "still here",
    });
  });

  it("decodes the charset named by the header, else by a meta tag", () => {
    const latin = Buffer.from("<p>na\xefve caf\xe9</p>", "latin1");
    expect(readablePage(latin, parseMediaType("text/html; charset=ISO-8859-1"), "html")?.text).toBe(
      "naïve café",
    );
    const meta = Buffer.from('<meta charset="windows-1252"><p>caf\xe9</p>', "latin1");
    expect(readablePage(meta, parseMediaType("text/html"), "html")?.text).toBe("café");
    expect(
      readablePage(bytes("ok"), parseMediaType("text/plain; charset=no-such"), "text")?.text,
    ).toBe("ok");
  });

  it("pretty-prints JSON, and shows JSON cut short as it is", () => {
    const type = parseMediaType("application/json");
    expect(readablePage(bytes('{"a":[1,2]}'), type, "json")?.text).toBe(
      '{\n  "a": [\n    1,\n    2\n  ]\n}',
    );
    expect(readablePage(bytes('{"a":[1,'), type, "json")?.text).toBe('{"a":[1,');
  });

  it("reads text, HTML and JSON types, and refuses the rest unread", () => {
    const kinds: Record<string, PageKind | undefined> = {
      "text/html; charset=utf-8": "html",
      "application/xhtml+xml": "html",
      "application/json": "json",
      "application/ld+json": "json",
      "text/plain": "text",
      "text/markdown": "text",
      "text/csv": "text",
      "application/rss+xml": "text",
      "application/xml": "text",
      "image/png": undefined,
      "application/pdf": undefined,
      "application/octet-stream": undefined,
      "video/mp4": undefined,
    };
    for (const [header, kind] of Object.entries(kinds)) {
      expect(pageKind(parseMediaType(header)), header).toBe(kind);
    }
    expect(pageKind(parseMediaType(null))).toBe("sniff");
  });

  it("without a type, reads HTML as HTML, text as text, and refuses binary", () => {
    const none = parseMediaType(null);
    expect(readablePage(bytes("  <!DOCTYPE html><p>hi</p>"), none, "sniff")).toEqual({
      text: "hi",
    });
    expect(readablePage(bytes("plain <b> words"), none, "sniff")).toEqual({
      text: "plain <b> words",
    });
    expect(readablePage(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00]), none, "sniff")).toBe(
      undefined,
    );
  });

  it("reads any Content-Type header without throwing", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constant(null)), (header) => {
        const type = parseMediaType(header);
        expect(type.essence).toBe(type.essence.trim().toLowerCase());
        expect(type.essence).not.toContain(";");
        pageKind(type);
      }),
    );
    expect(parseMediaType('Text/HTML ; Charset="UTF-8"')).toEqual({
      essence: "text/html",
      charset: "utf-8",
    });
  });

  it("reads any bytes as any kind without throwing", () => {
    const soup = fc
      .array(
        fc.oneof(
          fc.constantFrom(
            "<p>",
            "</p>",
            "<head>",
            "</head>",
            "<title>",
            "<script>",
            "</script>",
            "<a href='x'>",
            "&amp;",
            "&#x1F600;",
            "<!--",
            "<meta charset=utf-16>",
            "{",
            '"k":',
            "\u0000",
          ),
          fc.string(),
        ),
        { maxLength: 30 },
      )
      .map((parts) => bytes(parts.join("")));
    fc.assert(
      fc.property(
        fc.oneof(soup, fc.uint8Array({ maxLength: 2_000 })),
        fc.oneof(
          fc.string(),
          fc.constantFrom("text/html", "application/json", "text/plain; charset=utf-16le"),
        ),
        fc.constantFrom<PageKind>("html", "json", "text", "sniff"),
        (body, header, kind) => {
          const page = readablePage(body, parseMediaType(header), kind);
          if (page !== undefined) expect(typeof page.text).toBe("string");
        },
      ),
    );
  });
});

describe("reading a body up to a limit", () => {
  const stream = (chunks: Uint8Array[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });

  it("keeps exactly the first max bytes, and says whether there was more", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 400 }),
        async (chunks, max) => {
          const all = Buffer.concat(chunks);
          const read = await readCapped(stream(chunks), max);
          expect(Buffer.from(read.bytes)).toEqual(all.subarray(0, max));
          expect(read.truncated).toBe(all.length > max);
        },
      ),
    );
  });

  it("stops pulling from a body that never ends", async () => {
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(100));
      },
    });
    const read = await readCapped(endless, 1_000);
    expect(read).toMatchObject({ truncated: true });
    expect(read.bytes.byteLength).toBe(1_000);
    expect(pulls).toBeLessThan(20);
  });
});

describe("the URL fetch_url is asked for", () => {
  it("reads a bare host as https, drops the fragment and resolves redirects against the page", () => {
    expect(fetchTarget(" example.com/docs#intro ").href).toBe("https://example.com/docs");
    expect(fetchTarget("../b?x=1", new URL("https://example.com/a/c")).href).toBe(
      "https://example.com/b?x=1",
    );
    expect(fetchTarget("//other.example/p", new URL("http://example.com/")).href).toBe(
      "http://other.example/p",
    );
  });

  it("answers any text with an http(s) URL without credentials, or a clear refusal", () => {
    const urlish = fc.oneof(
      fc.string(),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc
        .tuple(
          fc.constantFrom("file:", "ftp:", "javascript:", "data:", "http:", "https:", "HTTP:"),
          fc.string(),
        )
        .map(([scheme, rest]) => `${scheme}${rest}`),
      fc
        .tuple(fc.webUrl(), fc.string({ minLength: 1 }))
        .map(([u, who]) => u.replace("://", `://${encodeURIComponent(who)}@`)),
    );
    fc.assert(
      fc.property(urlish, (text) => {
        try {
          const url = fetchTarget(text);
          expect(["http:", "https:"]).toContain(url.protocol);
          expect(url.username + url.password).toBe("");
          expect(url.hash).toBe("");
        } catch (error) {
          expect(error instanceof FetchRefusedError || error instanceof FetchError).toBe(true);
        }
      }),
    );
  });
});
