import { afterEach, describe, expect, it } from "vitest";
import type { ToolRun } from "../../src/core/agent/loop.ts";
import { EMPTY_INTENT } from "../../src/core/availability/intent.ts";
import { resolveAvailability } from "../../src/core/availability/resolve.ts";
import {
  DEFAULT_WEB,
  DEFAULT_WEB_FETCH,
  type WebConfig,
  type WebSearchConfig,
} from "../../src/core/config/web-section.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import type { AnyTool } from "../../src/core/tools/tool.ts";
import { webCapabilities, webTools } from "../../src/tools/web/index.ts";
import { runTool } from "../../src/turn/tool-runner.ts";
import { type FakeSearchApi, startFakeBrave, startFakeTavily } from "../fakes/search-apis.ts";
import { type FakeSearxng, startFakeSearxng } from "../fakes/searxng.ts";

const context = { platform: "console", workspace: "w", channel: "c", conversation: "v", user: "u" };
const call = {
  id: "call_1",
  type: "function" as const,
  function: { name: "web_search", arguments: "{}" },
};
const KEY = "BSA-test-key-0123456789abcdef";

function searchTool(search: WebSearchConfig, env: Record<string, string> = {}): AnyTool {
  const [tool] = webTools({ search, fetch: DEFAULT_WEB_FETCH }, { env });
  if (tool?.id !== "web_search") throw new Error("webTools lists web_search first");
  return tool;
}

/** The model's view: what a `web_search` call answers, through the real tool runner. */
function search(tool: AnyTool, query: string, runnerTimeoutMs = 10_000): Promise<ToolRun> {
  return runTool(tool, { query }, call, context, { timeoutMs: runnerTimeoutMs });
}

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function searxng(options?: Parameters<typeof startFakeSearxng>[0]): Promise<FakeSearxng> {
  const fake = await startFakeSearxng(options);
  servers.push(fake);
  return fake;
}
async function api(start: typeof startFakeBrave): Promise<FakeSearchApi> {
  const fake = await start({ apiKey: KEY });
  servers.push(fake);
  return fake;
}

const searx = (url: string, extra: Partial<WebSearchConfig> = {}): WebSearchConfig => ({
  provider: "searxng",
  url,
  maxResults: 5,
  timeoutMs: 10_000,
  ...extra,
});

/** What web_search answers: the results as one untrusted block named by the query. */
const found = (query: string, listing: string) =>
  `<untrusted source="web_search ${query}">\n${listing}\n</untrusted>`;

describe("web_search with SearxNG", () => {
  it("answers numbered results with title, URL and snippet, asking SearxNG's JSON API", async () => {
    const fake = await searxng();
    fake.results = [
      {
        url: "https://nodejs.org/",
        title: "Node.js",
        content: "Node.js® is a JavaScript runtime.",
      },
      { url: "https://bun.sh/", title: "Bun", content: "Bun is a fast   all-in-one\ntoolkit." },
    ];
    const run = await search(searchTool(searx(fake.url)), "javascript runtime");
    expect(run).toEqual({
      outcome: "ok",
      output: found(
        "javascript runtime",
        [
          "1. Node.js",
          "   https://nodejs.org/",
          "   Node.js® is a JavaScript runtime.",
          "",
          "2. Bun",
          "   https://bun.sh/",
          "   Bun is a fast all-in-one toolkit.",
        ].join("\n"),
      ),
    });
    expect(fake.requests).toEqual([
      { query: "javascript runtime", format: "json", path: "/search" },
    ]);
  });

  it("gives at most max_results results", async () => {
    const fake = await searxng();
    fake.results = Array.from({ length: 8 }, (_, i) => ({
      url: `https://r${i}.example/`,
      title: `R${i}`,
    }));
    const run = await search(searchTool(searx(fake.url, { maxResults: 3 })), "many");
    expect(run.output).toBe(
      found(
        "many",
        "1. R0\n   https://r0.example/\n\n2. R1\n   https://r1.example/\n\n3. R2\n   https://r2.example/",
      ),
    );
  });

  it("works with an instance under a path", async () => {
    const fake = await searxng({ basePath: "/searx" });
    fake.results = [{ url: "https://a.example/", title: "A" }];
    const run = await search(searchTool(searx(`${fake.url}/`)), "a");
    expect(run.output).toBe(found("a", "1. A\n   https://a.example/"));
    expect(fake.requests[0]?.path).toBe("/searx/search");
  });

  it("says so when nothing was found", async () => {
    const fake = await searxng();
    expect((await search(searchTool(searx(fake.url)), "zzqx")).output).toBe(
      'No results for "zzqx". Try other words, or a broader query.',
    );
  });

  it("tells the operator to enable JSON when the instance refuses it", async () => {
    const fake = await searxng({ jsonEnabled: false });
    expect(await search(searchTool(searx(fake.url)), "q")).toEqual({
      outcome: "error",
      output:
        "web_search failed: SearxNG answered HTTP 403. The instance does not serve JSON: the operator should add json to search.formats in SearxNG's settings.yml.",
    });
  });

  it("reports a server error as search being down", async () => {
    const fake = await searxng();
    fake.override = { status: 500, rawBody: '{"message":"engine crashed"}' };
    expect((await search(searchTool(searx(fake.url)), "q")).output).toBe(
      "web_search failed: SearxNG answered HTTP 500 (engine crashed). Search is down; answer without it and tell the person.",
    );
  });

  it.each([
    ["something that is not JSON", "<html>oops</html>", "answered with something that is not JSON"],
    ["JSON without results", '{"error":"no"}', "answered JSON that holds no search results"],
  ])("reports %s as a misconfigured url", async (_what, body, problem) => {
    const fake = await searxng();
    fake.override = { status: 200, rawBody: body };
    expect((await search(searchTool(searx(fake.url)), "q")).output).toBe(
      `web_search failed: SearxNG ${problem}. The operator should check that web.search.url points at the search API.`,
    );
  });

  it("skips malformed entries instead of failing the search", async () => {
    const fake = await searxng();
    fake.override = {
      status: 200,
      rawBody: JSON.stringify({
        results: [{ title: "no url" }, 42, { url: "https://ok.example/", title: "OK" }],
      }),
    };
    expect((await search(searchTool(searx(fake.url)), "q")).output).toBe(
      found("q", "1. OK\n   https://ok.example/"),
    );
  });

  it("gives up when SearxNG does not answer within its time limit, and hangs up", async () => {
    const fake = await searxng();
    fake.override = { hang: true };
    expect((await search(searchTool(searx(fake.url, { timeoutMs: 200 })), "q")).output).toBe(
      "web_search failed: SearxNG did not answer within 0.2 s. Try again later, or answer without searching.",
    );
    await fake.abandoned;
  });

  it("hangs up when the turn's signal aborts", async () => {
    const fake = await searxng();
    fake.override = { hang: true };
    const run = await search(searchTool(searx(fake.url)), "q", 100);
    expect(run.outcome).toBe("timeout");
    await fake.abandoned;
  });

  it("says where it could not connect", async () => {
    const fake = await searxng();
    await fake.close();
    expect((await search(searchTool(searx(fake.url)), "q")).output).toBe(
      `web_search failed: could not reach SearxNG at ${fake.url} (ECONNREFUSED). Search is down; answer without it and tell the person.`,
    );
  });
});

describe("web_search with Brave Search", () => {
  const brave = (url: string): WebSearchConfig => ({
    provider: "brave",
    url,
    apiKeyEnv: "BRAVE_API_KEY",
    maxResults: 2,
    timeoutMs: 10_000,
  });

  it("sends the key from the named variable and reads results without their markup", async () => {
    const fake = await api(startFakeBrave);
    fake.results = [
      {
        title: "Rust &amp; Cargo",
        url: "https://rust-lang.org/",
        snippet: "A <strong>language</strong> empowering everyone.",
      },
      { title: "Crates", url: "https://crates.io/", snippet: "The Rust package registry." },
      { title: "Third", url: "https://third.example/", snippet: "Not asked for." },
    ];
    const run = await search(searchTool(brave(fake.url), { BRAVE_API_KEY: KEY }), "rust");
    expect(run.output).toBe(
      found(
        "rust",
        [
          "1. Rust & Cargo",
          "   https://rust-lang.org/",
          "   A language empowering everyone.",
          "",
          "2. Crates",
          "   https://crates.io/",
          "   The Rust package registry.",
        ].join("\n"),
      ),
    );
    expect(fake.requests[0]).toMatchObject({
      method: "GET",
      path: "/res/v1/web/search",
      query: { q: "rust", count: "2" },
      headers: { "x-subscription-token": KEY },
    });
  });

  it("reads an answer without web results as no results", async () => {
    const fake = await api(startFakeBrave);
    const run = await search(searchTool(brave(fake.url), { BRAVE_API_KEY: KEY }), "nothing");
    expect(run.output).toBe('No results for "nothing". Try other words, or a broader query.');
  });

  it("names the variable when the key is rejected, and never shows the key", async () => {
    const fake = await api(startFakeBrave);
    const wrong = "BSA-wrong-key-9876543210";
    const run = await search(searchTool(brave(fake.url), { BRAVE_API_KEY: wrong }), "rust");
    expect(run.output).toBe(
      "web_search failed: Brave Search answered HTTP 422 (The provided subscription token is invalid: [redacted]). Brave Search rejected the API key: the operator should check BRAVE_API_KEY.",
    );
    expect(run.output).not.toContain(wrong);
  });
});

describe("web_search with Tavily", () => {
  const tavily = (url: string): WebSearchConfig => ({
    provider: "tavily",
    url,
    apiKeyEnv: "TAVILY_KEY",
    maxResults: 3,
    timeoutMs: 10_000,
  });

  it("posts the query with the key as a bearer token", async () => {
    const fake = await api(startFakeTavily);
    fake.results = [{ title: "Tavily", url: "https://tavily.com/", snippet: "Search for agents." }];
    const run = await search(searchTool(tavily(fake.url), { TAVILY_KEY: KEY }), "agents");
    expect(run.output).toBe(
      found("agents", "1. Tavily\n   https://tavily.com/\n   Search for agents."),
    );
    expect(fake.requests[0]).toMatchObject({
      method: "POST",
      path: "/search",
      headers: { authorization: `Bearer ${KEY}` },
      body: { query: "agents", max_results: 3 },
    });
  });

  it("names the variable when the key is rejected", async () => {
    const fake = await api(startFakeTavily);
    const run = await search(searchTool(tavily(fake.url), { TAVILY_KEY: "tvly-wrong" }), "q");
    expect(run.output).toBe(
      "web_search failed: Tavily answered HTTP 401 (Unauthorized: missing or invalid API key.). Tavily rejected the API key: the operator should check TAVILY_KEY.",
    );
  });
});

describe("the web_search capability", () => {
  it("is absent with a reason when no provider is configured, and the floor turns the tool off", () => {
    const capabilities = webCapabilities(DEFAULT_WEB, {});
    expect(capabilities).toEqual({
      web_search: { available: false, reason: "no web search provider configured" },
    });
    const registry = new ToolRegistry(webTools(DEFAULT_WEB, { env: {} }));
    const resolution = resolveAvailability(
      registry,
      { global: { keys: { web_search: true } } },
      EMPTY_INTENT,
      capabilities,
    );
    expect(resolution.states.get("web_search")).toEqual({
      id: "web_search",
      status: "absent",
      capability: "web_search",
      reason: "no web search provider configured",
    });
    expect(resolution.states.get("fetch_url")?.status).toBe("enabled");
  });

  it("is absent with the variable's name when a keyed provider's key is not set", () => {
    const config: WebConfig = {
      search: { provider: "brave", apiKeyEnv: "BRAVE_API_KEY", maxResults: 5, timeoutMs: 10_000 },
      fetch: DEFAULT_WEB_FETCH,
    };
    expect(webCapabilities(config, { BRAVE_API_KEY: "  " })).toEqual({
      web_search: {
        available: false,
        reason:
          "the BRAVE_API_KEY environment variable is not set (web search is configured for Brave Search, which needs its API key there)",
      },
    });
    expect(webCapabilities(config, { BRAVE_API_KEY: KEY })).toEqual({
      web_search: { available: true },
    });
  });

  it("is available for SearxNG, which needs no key", () => {
    const config: WebConfig = { search: searx("http://searxng:8080"), fetch: DEFAULT_WEB_FETCH };
    expect(webCapabilities(config, {})).toEqual({ web_search: { available: true } });
  });
});
