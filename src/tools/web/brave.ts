import { z } from "zod";
import { searchJson } from "./search-http.ts";
import { baseWithSlash, keyHint, resultsOf } from "./search-results.ts";
import type { KeyedSearchSettings, SearchProvider, SearchResult } from "./search-types.ts";

const LABEL = "Brave Search";
export const BRAVE_API = "https://api.search.brave.com";

/** `web` is absent when nothing was found. */
const answer = z.object({
  web: z.object({ results: z.array(z.unknown()).optional() }).optional(),
});
const hit = z.object({
  url: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
});

/**
 * The Brave Search API: `GET /res/v1/web/search?q=...&count=N` with the key
 * in `X-Subscription-Token`. `url` replaces https://api.search.brave.com
 * (a proxy, or a test server).
 */
export function braveProvider(settings: KeyedSearchSettings): SearchProvider {
  return {
    label: LABEL,
    async search({ query, maxResults, signal }): Promise<readonly SearchResult[]> {
      const url = new URL("res/v1/web/search", baseWithSlash(settings.url ?? BRAVE_API));
      url.searchParams.set("q", query);
      // Brave's own limit is 20 per request.
      url.searchParams.set("count", String(Math.min(maxResults, 20)));
      const json = await searchJson({
        label: LABEL,
        url,
        method: "GET",
        headers: { "x-subscription-token": settings.apiKey },
        schema: answer,
        timeoutMs: settings.timeoutMs,
        signal,
        secrets: [settings.apiKey],
        hint: keyHint(LABEL, settings.keyEnv),
      });
      return resultsOf(json.web?.results ?? [], hit, (h) => ({
        title: h.title ?? "",
        url: h.url,
        snippet: h.description ?? "",
      })).slice(0, maxResults);
    },
  };
}
