import { z } from "zod";
import { searchJson } from "./search-http.ts";
import { baseWithSlash, hitsOf } from "./search-results.ts";
import type { SearchProvider, SearchResult } from "./search-types.ts";

const LABEL = "SearxNG";

const answer = z.object({ results: z.array(z.unknown()) });
/**
 * A SearxNG instance's JSON API: `GET {url}/search?q=...&format=json`. The
 * instance must list `json` under `search.formats` in its settings.yml; by
 * default it answers 403 to JSON requests, which the error says.
 *
 * @example
 * const provider = searxngProvider({ url: "http://searxng:8080", timeoutMs: 10_000 });
 */
export function searxngProvider(settings: { url: string; timeoutMs: number }): SearchProvider {
  return {
    label: LABEL,
    async search({ query, maxResults, signal }): Promise<readonly SearchResult[]> {
      const url = new URL("search", baseWithSlash(settings.url));
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      const json = await searchJson({
        label: LABEL,
        url,
        method: "GET",
        headers: {},
        schema: answer,
        timeoutMs: settings.timeoutMs,
        signal,
        secrets: [],
        hint: (status) =>
          status === 403
            ? "The instance does not serve JSON: the operator should add json to search.formats in SearxNG's settings.yml."
            : status === 429
              ? "SearxNG is rate limiting this bot (its limiter); try again later."
              : "Search is down; answer without it and tell the person.",
      });
      return hitsOf(json.results, "content").slice(0, maxResults);
    },
  };
}
