import { afterEach, describe, expect, it } from "vitest";
import type { ToolRun } from "../../src/core/agent/loop.ts";
import { DEFAULT_WEB_FETCH, type WebFetchConfig } from "../../src/core/config/web-section.ts";
import { fetchUrlTool, type HostLookup } from "../../src/tools/web/index.ts";
import { runTool } from "../../src/turn/tool-runner.ts";
import {
  type FakeSite,
  gzipped,
  type Page,
  page,
  redirect,
  startFakeSite,
  typed,
} from "../fakes/web-pages.ts";

const context = { platform: "console", workspace: "w", channel: "c", conversation: "v", user: "u" };
const call = {
  id: "call_1",
  type: "function" as const,
  function: { name: "fetch_url", arguments: "{}" },
};

const INTERNAL_HINT =
  "fetch_url only reads public web pages; an operator can let it reach an internal host with web.fetch.allow_hosts.";

/** A resolver from a table, standing in for DNS: `good.example` -> 127.0.0.1 and the like. */
function dns(table: Record<string, string | string[]>): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (host: string) => {
    calls.push(host);
    const answer = table[host];
    if (answer === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    }
    return [answer].flat().map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

/** The model's view: what a `fetch_url` call answers, through the real tool runner. */
function read(
  url: string,
  options: {
    settings?: Partial<WebFetchConfig>;
    lookup?: HostLookup;
    runnerTimeoutMs?: number;
  } = {},
): Promise<ToolRun> {
  const tool = fetchUrlTool(
    { ...DEFAULT_WEB_FETCH, ...options.settings },
    options.lookup === undefined ? {} : { lookup: options.lookup },
  );
  return runTool(tool, { url }, call, context, { timeoutMs: options.runnerTimeoutMs ?? 10_000 });
}

/** What fetch_url answers for a page: the address, then the site's words as untrusted text. */
function fetched(url: string, text: string): string {
  return `URL: ${url}\n\n<untrusted source="fetch_url ${url}">\n${text}\n</untrusted>`;
}

let sites: FakeSite[] = [];
async function site(pages: Record<string, Page>): Promise<FakeSite> {
  const started = await startFakeSite(pages);
  sites.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(sites.map((s) => s.close()));
  sites = [];
});

/** `good.example` is the test site: it resolves to loopback, and the policy allows that one name. */
const good = {
  settings: { allowHosts: ["good.example"] },
  lookup: dns({ "good.example": "127.0.0.1" }),
};

describe("fetch_url reads pages", () => {
  it("reads an HTML page as markdown, without scripts, styles or menus", async () => {
    const s = await site({
      "/": page(`<!doctype html><html><head><title>Switchyard &amp; friends</title>
        <style>body { color: red }</style><script>alert("hi")</script></head>
        <body><nav><a href="/home">Menu</a></nav>
        <h1>Hello</h1><p>Some <b>bold</b> text and a <a href="https://example.org/a">link</a>.</p>
        <ul><li>one</li><li>two</li></ul><script>track()</script></body></html>`),
    });
    const run = await read(`http://good.example:${s.port}/`, good);
    expect(run).toEqual({
      outcome: "ok",
      output: fetched(
        `http://good.example:${s.port}/`,
        [
          "Title: Switchyard & friends",
          "",
          "# Hello",
          "",
          "Some **bold** text and a [link](https://example.org/a).",
          "",
          "* one",
          "* two",
        ].join("\n"),
      ),
    });
  });

  it("passes plain text through and pretty-prints JSON", async () => {
    const s = await site({
      "/notes.txt": typed("text/plain", "line one\n  line two\n"),
      "/data": typed("application/json", '{"name":"switchyard","tags":["a","b"]}'),
    });
    const text = await read(`http://good.example:${s.port}/notes.txt`, good);
    expect(text.output).toBe(
      fetched(`http://good.example:${s.port}/notes.txt`, "line one\n  line two"),
    );
    const json = await read(`http://good.example:${s.port}/data`, good);
    expect(json.output).toBe(
      fetched(
        `http://good.example:${s.port}/data`,
        JSON.stringify({ name: "switchyard", tags: ["a", "b"] }, null, 2),
      ),
    );
  });

  it("reads gzip-compressed pages and the charset the server names", async () => {
    const s = await site({
      "/gz": gzipped("<p>compressed words</p>"),
      "/latin": typed("text/plain; charset=iso-8859-1", Buffer.from("caf\xe9 cr\xe8me", "latin1")),
    });
    expect((await read(`http://good.example:${s.port}/gz`, good)).output).toContain(
      "compressed words",
    );
    expect((await read(`http://good.example:${s.port}/latin`, good)).output).toContain(
      "café crème",
    );
  });

  it("refuses types that are not text, saying what it reads", async () => {
    const s = await site({
      "/logo.png": typed("image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47])),
    });
    expect(await read(`http://good.example:${s.port}/logo.png`, good)).toEqual({
      outcome: "error",
      output: `fetch_url failed: http://good.example:${s.port}/logo.png is image/png, which is not text. fetch_url reads HTML, plain text and JSON.`,
    });
  });

  it("says which HTTP error the site answered and what it means", async () => {
    const s = await site({});
    expect((await read(`http://good.example:${s.port}/missing`, good)).output).toBe(
      `fetch_url failed: http://good.example:${s.port}/missing answered HTTP 404 Not Found. The page does not exist; check the address.`,
    );
  });

  it("stops reading a page that never ends at max_bytes, and says it was cut", async () => {
    const s = await site({
      "/stream": { kind: "endless", type: "text/plain", chunk: "x".repeat(4_096) },
    });
    const run = await read(`http://good.example:${s.port}/stream`, {
      ...good,
      settings: { ...good.settings, maxBytes: 10_000 },
    });
    expect(run.outcome).toBe("ok");
    expect(run.output).toBe(
      `${fetched(`http://good.example:${s.port}/stream`, "x".repeat(10_000))}\n\n[truncated: stopped reading after 10 kB; the page is longer]`,
    );
  });

  it("hands the model at most max_chars of text, and says how much there was", async () => {
    const s = await site({ "/long": typed("text/plain", "y".repeat(3_000)) });
    const run = await read(`http://good.example:${s.port}/long`, {
      ...good,
      settings: { ...good.settings, maxChars: 1_000 },
    });
    expect(run.output).toBe(
      `${fetched(`http://good.example:${s.port}/long`, "y".repeat(1_000))}\n\n[truncated: showing the first 1000 of 3000 characters]`,
    );
  });

  it("gives up on a site that does not answer within its time limit, and hangs up", async () => {
    const s = await site({ "/slow": { kind: "hang" } });
    const run = await read(`http://good.example:${s.port}/slow`, {
      ...good,
      settings: { ...good.settings, timeoutMs: 200 },
    });
    expect(run).toEqual({
      outcome: "error",
      output: `fetch_url failed: http://good.example:${s.port}/slow did not answer within 200 ms. Try again later, or find another source.`,
    });
    await s.abandoned;
  });

  it("hangs up when the turn's signal aborts", async () => {
    const s = await site({ "/slow": { kind: "hang" } });
    const run = await read(`http://good.example:${s.port}/slow`, { ...good, runnerTimeoutMs: 100 });
    expect(run.outcome).toBe("timeout");
    await s.abandoned;
  });

  it("follows five redirects, relative ones included, and shows the final address", async () => {
    const s = await site({
      "/1": redirect("/2", 301),
      "/2": redirect("3", 302),
      "/3": redirect("/4", 303),
      "/4": redirect("/5", 307),
      "/5": redirect("/final", 308),
      "/final": page("<p>arrived</p>"),
    });
    expect((await read(`http://good.example:${s.port}/1`, good)).output).toBe(
      fetched(`http://good.example:${s.port}/final`, "arrived"),
    );
  });

  it("stops after five redirects", async () => {
    const pages: Record<string, Page> = { "/6": page("<p>too far</p>") };
    for (let i = 0; i < 6; i++) pages[`/${i}`] = redirect(`/${i + 1}`);
    const s = await site(pages);
    const run = await read(`http://good.example:${s.port}/0`, good);
    expect(run.output).toBe(
      `fetch_url failed: http://good.example:${s.port}/0 redirected more than 5 times (last to http://good.example:${s.port}/6). Try the final address directly, or another source.`,
    );
    expect(s.hits("/6")).toBe(0);
  });

  it("stops a redirect loop and shows it", async () => {
    const s = await site({ "/a": redirect("/b"), "/b": redirect("/a") });
    const base = `http://good.example:${s.port}`;
    expect((await read(`${base}/a`, good)).output).toBe(
      `fetch_url failed: ${base}/a redirects in a loop (${base}/a -> ${base}/b -> ${base}/a). The site is broken; try another source.`,
    );
  });

  it("reads a bare host and path as https", async () => {
    const lookup = dns({});
    const run = await read("no-such-host.example/page", { lookup });
    expect(run.output).toBe(
      "fetch_url failed: no-such-host.example could not be found (ENOTFOUND). Check the address for typos.",
    );
    expect(lookup.calls).toEqual(["no-such-host.example"]);
  });
});

describe("fetch_url refuses addresses outside the public internet", () => {
  it("refuses loopback without sending anything, naming the address", async () => {
    const s = await site({ "/": page("<p>admin panel</p>") });
    expect(await read(`http://127.0.0.1:${s.port}/`)).toEqual({
      outcome: "error",
      output: `fetch_url failed: refused: 127.0.0.1 is a loopback address. ${INTERNAL_HINT}`,
    });
    expect(s.hits("/")).toBe(0);
  });

  it.each([
    ["http://10.0.0.1/", "10.0.0.1 is a private address"],
    ["http://172.16.5.4/", "172.16.5.4 is a private address"],
    ["http://192.168.1.1/", "192.168.1.1 is a private address"],
    ["http://100.64.0.1/", "100.64.0.1 is a carrier-grade NAT address"],
    ["http://169.254.1.1/", "169.254.1.1 is a link-local address"],
    ["http://[::1]/", "::1 is a loopback address"],
    ["http://[fe80::1]/", "fe80::1 is a link-local address"],
    ["http://[fd12:3456::1]/", "fd12:3456::1 is a unique-local address"],
    ["http://[::ffff:10.0.0.1]/", "::ffff:a00:1 (10.0.0.1) is a private address"],
    ["http://[::ffff:127.0.0.1]/", "::ffff:7f00:1 (127.0.0.1) is a loopback address"],
  ])("refuses %s: %s", async (url, reason) => {
    expect((await read(url)).output).toBe(`fetch_url failed: refused: ${reason}. ${INTERNAL_HINT}`);
  });

  it.each([
    ["http://0.0.0.0/", "0.0.0.0 is an unspecified address"],
    ["http://224.0.0.1/", "224.0.0.1 is a multicast address"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"],
    ["http://[fd00:ec2::254]/", "fd00:ec2::254 is a cloud metadata address"],
    ["http://metadata.google.internal/", "metadata.google.internal is a cloud metadata service"],
  ])("refuses %s even with allow_private: %s", async (url, reason) => {
    const run = await read(url, { settings: { allowPrivate: true } });
    expect(run.output).toBe(
      `fetch_url failed: refused: ${reason}. fetch_url only reads public web pages.`,
    );
  });

  it("refuses a public-looking name that resolves to loopback, without connecting", async () => {
    const s = await site({ "/": page("<p>admin panel</p>") });
    const run = await read(`http://public.example:${s.port}/`, {
      lookup: dns({ "public.example": "127.0.0.1" }),
    });
    expect(run.output).toBe(
      `fetch_url failed: refused: public.example resolves to 127.0.0.1, a loopback address. ${INTERNAL_HINT}`,
    );
    expect(s.hits("/")).toBe(0);
  });

  it("refuses a name if any one of its addresses is private", async () => {
    const run = await read("http://mixed.example/", {
      lookup: dns({ "mixed.example": ["93.184.215.14", "10.1.2.3"] }),
    });
    expect(run.output).toBe(
      `fetch_url failed: refused: mixed.example resolves to 10.1.2.3, a private address. ${INTERNAL_HINT}`,
    );
  });

  it("keeps a metadata address refused for a host on allow_hosts", async () => {
    const run = await read("http://good.example/", {
      settings: { allowHosts: ["good.example"] },
      lookup: dns({ "good.example": "169.254.169.254" }),
    });
    expect(run.output).toBe(
      "fetch_url failed: refused: good.example resolves to 169.254.169.254, a cloud metadata address. fetch_url only reads public web pages.",
    );
  });

  describe("re-checks every redirect hop", () => {
    // The site is reachable as good.example (allowed by name); evil.example
    // resolves to the very same loopback address but is not on the list.
    const lookup = dns({ "good.example": "127.0.0.1", "evil.example": "127.0.0.1" });
    const settings = { allowHosts: ["good.example"] };

    it.each([
      [
        "a name that resolves to loopback",
        "http://evil.example:PORT/secret",
        "evil.example resolves to 127.0.0.1, a loopback address",
        INTERNAL_HINT,
      ],
      [
        "a loopback address",
        "http://127.0.0.1:PORT/secret",
        "127.0.0.1 is a loopback address",
        INTERNAL_HINT,
      ],
      [
        "the metadata service",
        "http://169.254.169.254/latest/meta-data/",
        "169.254.169.254 is a cloud metadata address",
        "fetch_url only reads public web pages.",
      ],
    ])("refuses a redirect to %s", async (_what, target, reason, hint) => {
      const pages: Record<string, Page> = { "/secret": page("<p>secret</p>") };
      const s = await site(pages);
      pages["/start"] = redirect(target.replace("PORT", String(s.port)));
      const run = await read(`http://good.example:${s.port}/start`, { settings, lookup });
      expect(run.output).toBe(`fetch_url failed: refused: ${reason}. ${hint}`);
      expect(s.hits("/start")).toBe(1);
      expect(s.hits("/secret")).toBe(0);
    });

    it("follows the same redirect to an allowed host (the refusal is the target's, not the redirect's)", async () => {
      const pages: Record<string, Page> = { "/secret": page("<p>secret</p>") };
      const s = await site(pages);
      pages["/start"] = redirect(`http://good.example:${s.port}/secret`);
      const run = await read(`http://good.example:${s.port}/start`, { settings, lookup });
      expect(run.output).toBe(fetched(`http://good.example:${s.port}/secret`, "secret"));
    });
  });

  it("connects to the address it checked: a name is resolved once, so rebinding it changes nothing", async () => {
    const s = await site({ "/": page("<p>the real page</p>") });
    let answers = 0;
    const calls: string[] = [];
    // The first answer passes the check; any later one would be the metadata service.
    const rebinding: HostLookup = async (host) => {
      calls.push(host);
      answers++;
      return [{ address: answers === 1 ? "127.0.0.1" : "169.254.169.254", family: 4 }];
    };
    const run = await read(`http://good.example:${s.port}/`, {
      settings: { allowHosts: ["good.example"] },
      lookup: rebinding,
    });
    expect(run.output).toBe(fetched(`http://good.example:${s.port}/`, "the real page"));
    expect(calls).toEqual(["good.example"]);
  });

  it("lets allow_private reach a self-hosted page", async () => {
    const s = await site({ "/": page("<p>team wiki</p>") });
    const run = await read(`http://127.0.0.1:${s.port}/`, { settings: { allowPrivate: true } });
    expect(run.output).toBe(fetched(`http://127.0.0.1:${s.port}/`, "team wiki"));
  });

  it.each([
    [
      "file:///etc/passwd",
      "file: URLs are not web pages. fetch_url reads http and https addresses only.",
    ],
    [
      "gopher://good.example/",
      "gopher: URLs are not web pages. fetch_url reads http and https addresses only.",
    ],
    [
      "http://admin:hunter2@good.example/",
      "the URL holds a user name or password. fetch_url never sends credentials; give the address without them.",
    ],
  ])("refuses %s before resolving anything", async (url, message) => {
    const lookup = dns({ "good.example": "127.0.0.1" });
    const run = await read(url, { settings: { allowHosts: ["good.example"] }, lookup });
    expect(run.output).toBe(`fetch_url failed: refused: ${message}`);
    expect(lookup.calls).toEqual([]);
  });
});
