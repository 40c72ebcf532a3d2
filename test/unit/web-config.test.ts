import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { renderKeyPath } from "../../src/core/config/errors.ts";
import { problemsOf } from "../../src/core/config/problems.ts";
import { DEFAULT_WEB, type WebConfig, webSection } from "../../src/core/config/web-section.ts";

/** The section as the config loader will mount it: under `web:`, an empty section reading as `{}`. */
const file = z.looseObject({ web: z.preprocess((value) => value ?? {}, webSection) });

function read(yaml: string): WebConfig {
  return file.parse(parse(yaml)).web;
}

/** The problems a person would see, as `key.path: problem`, top to bottom. */
function problems(yaml: string): string[] {
  const result = file.safeParse(parse(yaml), { reportInput: true });
  if (result.success) return [];
  return result.error.issues
    .flatMap((issue) => problemsOf(issue))
    .map((p) => `${renderKeyPath(p.path)}: ${p.problem}`);
}

describe("the web config section", () => {
  it("without a web section, has no search provider and safe fetch limits", () => {
    expect(read("tools: {}")).toEqual(DEFAULT_WEB);
    expect(read("web:")).toEqual(DEFAULT_WEB);
    expect(DEFAULT_WEB).toEqual({
      fetch: {
        maxBytes: 1_000_000,
        maxChars: 20_000,
        timeoutMs: 15_000,
        allowHosts: [],
        allowPrivate: false,
      },
    });
  });

  it("reads a SearxNG provider with its defaults", () => {
    expect(
      read("web:\n  search: { provider: searxng, url: 'http://searxng:8080' }").search,
    ).toEqual({
      provider: "searxng",
      url: "http://searxng:8080",
      maxResults: 5,
      timeoutMs: 10_000,
    });
  });

  it("reads the key's variable name for Brave and Tavily, defaulting to the usual one", () => {
    expect(read("web: { search: { provider: brave } }").search?.apiKeyEnv).toBe("BRAVE_API_KEY");
    expect(read("web: { search: { provider: tavily } }").search?.apiKeyEnv).toBe("TAVILY_API_KEY");
    expect(
      read(
        "web: { search: { provider: brave, api_key_env: SEARCH_KEY, max_results: 8, timeout_seconds: 2.5 } }",
      ).search,
    ).toEqual({ provider: "brave", apiKeyEnv: "SEARCH_KEY", maxResults: 8, timeoutMs: 2_500 });
  });

  it("reads fetch limits, on/off words and host names as the URL parser spells them", () => {
    const config = read(
      "web:\n  fetch:\n    max_bytes: 5000\n    timeout_seconds: 3\n    allow_private: on\n    allow_hosts: [Wiki.Internal., '[::1]', 10.0.0.5]",
    );
    expect(config.fetch).toEqual({
      maxBytes: 5_000,
      maxChars: 20_000,
      timeoutMs: 3_000,
      allowHosts: ["wiki.internal", "::1", "10.0.0.5"],
      allowPrivate: true,
    });
  });

  it.each([
    [
      "web: { search: { provider: google } }",
      'web.search.provider: expected searxng, brave or tavily, found "google". It names the search service web_search asks.',
    ],
    [
      "web: { search: { provider: searxng } }",
      "web.search.url: searxng needs url: the address of your SearxNG instance, e.g. url: http://searxng:8080 (with json in its search.formats).",
    ],
    [
      "web: { search: { provider: searxng, url: 'ftp://files' } }",
      'web.search.url: "ftp://files" is not an http(s) URL. Write the address with its scheme, e.g. http://searxng:8080.',
    ],
    [
      "web: { search: { provider: searxng, url: 'http://x', api_key_env: K } }",
      "web.search.api_key_env: SearxNG takes no API key. Remove api_key_env, or choose provider: brave or tavily.",
    ],
    [
      "web: { search: { provider: brave, max_results: 50 } }",
      "web.search.max_results: 50 is too large: use 1 to 20.",
    ],
    [
      "web: { search: { provider: brave, timeout_seconds: 0 } }",
      "web.search.timeout_seconds: 0 is not above 0 seconds.",
    ],
    [
      "web: { fetch: { allow_private: maybe } }",
      'web.fetch.allow_private: "maybe" is not on/off/true/false. Write allow_private: on or allow_private: off.',
    ],
    [
      "web: { fetch: { allow_hosts: ['https://wiki.internal/'] } }",
      'web.fetch.allow_hosts[0]: "https://wiki.internal/" is not a host name. Write the name alone, without scheme, port or path, e.g. wiki.internal.',
    ],
    [
      "web: { fetch: { max_size: 10 } }",
      'web.fetch.max_size: unknown key "max_size". The fetch section takes max_bytes:, max_chars:, timeout_seconds:, allow_hosts: and allow_private:.',
    ],
    [
      "web: { web_search: { provider: brave } }",
      'web.web_search: unknown key "web_search". The web section takes search: and fetch:.',
    ],
  ])("explains %s", (yaml, problem) => {
    expect(problems(yaml)).toEqual([problem]);
  });

  it("never repeats a key written where only its variable's name belongs", () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9_-]{12,40}$/).filter((s) => s.includes("-"));
    fc.assert(
      fc.property(secret, (key) => {
        const shown = [
          ...problems(`web: { search: { provider: brave, api_key: '${key}' } }`),
          ...problems(`web: { search: { provider: brave, api_key_env: '${key}' } }`),
          ...problems(`web: { search: { provider: searxng, url: 'https://me:${key}@searx' } }`),
          ...problems(`web: { search: { provider: searxng, url: 'ftp://me:${key}@searx' } }`),
          ...problems(`web: { search: { provider: searxng, url: 'me:${key}@searx' } }`),
        ];
        expect(shown).toHaveLength(5);
        for (const line of shown) expect(line).not.toContain(key);
      }),
    );
    expect(problems("web: { search: { provider: brave, api_key: 'BSA-xyz' } }")).toEqual([
      "web.search.api_key: keys never go in the config file. Put the key in an environment variable and name it with api_key_env: (e.g. api_key_env: BRAVE_API_KEY).",
    ]);
  });

  it("answers any value with a config or with problems that point at a key, never a crash", () => {
    const leaf = fc.oneof(
      fc.constantFrom("searxng", "brave", "tavily", "http://searxng:8080", "on", "maybe", "KEY"),
      fc.integer({ min: -5, max: 100_000_000 }),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.string(),
    );
    const key = fc.constantFrom(
      "provider",
      "url",
      "api_key_env",
      "api_key",
      "max_results",
      "timeout_seconds",
      "max_bytes",
      "max_chars",
      "allow_hosts",
      "allow_private",
      "search",
      "fetch",
    );
    const shaped = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, leaf, tie("map"), fc.array(leaf, { maxLength: 3 })),
      map: fc.dictionary(key, tie("value"), { maxKeys: 5 }),
    })).map;
    const web = fc.oneof(
      fc.anything(),
      shaped,
      fc.record({ search: shaped, fetch: shaped }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(web, (value) => {
        const result = file.safeParse({ web: value }, { reportInput: true });
        if (result.success) {
          expect(result.data.web.fetch.maxBytes).toBeGreaterThanOrEqual(1_000);
          return;
        }
        const found = result.error.issues.flatMap((issue) => problemsOf(issue));
        expect(found.length).toBeGreaterThan(0);
        for (const p of found) {
          expect(p.path[0]).toBe("web");
          expect(p.problem.length).toBeGreaterThan(10);
        }
      }),
    );
  });
});
