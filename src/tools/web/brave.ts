import { z } from "zod";
import { searchJson } from "./search-http.ts";
import { baseWithSlash, hitsOf, keyedCallParts } from "./search-results.ts";
import type { KeyedSearchSettings, SearchProvider, SearchResult } from "./search-types.ts";

const LABEL = "Brave Search";
export const BRAVE_API = "https://api.search.brave.com";

/** `web` is absent when nothing was found. */
const answer = z.object({
  web: z.object({ results: z.array(z.unknown()).optional() }).optional(),
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
        ...keyedCallParts(LABEL, settings, signal),
        url,
        method: "GET",
        headers: { "x-subscription-token": settings.apiKey },
        schema: answer,
      });
      return hitsOf(json.web?.results ?? [], "description").slice(0, maxResults);
    },
  };
}
