import { z } from "zod";
import { searchJson } from "./search-http.ts";
import { baseWithSlash, hitsOf, keyedCallParts } from "./search-results.ts";
import type { KeyedSearchSettings, SearchProvider, SearchResult } from "./search-types.ts";

const LABEL = "Tavily";
export const TAVILY_API = "https://api.tavily.com";

const answer = z.object({ results: z.array(z.unknown()) });
/**
 * The Tavily search API: `POST /search` with a JSON body and the key as a
 * bearer token. `url` replaces https://api.tavily.com (a proxy, or a test
 * server).
 */
export function tavilyProvider(settings: KeyedSearchSettings): SearchProvider {
  return {
    label: LABEL,
    async search({ query, maxResults, signal }): Promise<readonly SearchResult[]> {
      const json = await searchJson({
        ...keyedCallParts(LABEL, settings, signal),
        url: new URL("search", baseWithSlash(settings.url ?? TAVILY_API)),
        method: "POST",
        headers: {
          authorization: `Bearer ${settings.apiKey}`,
          "content-type": "application/json",
        },
        // Tavily caps max_results at 20.
        body: JSON.stringify({
          query,
          max_results: Math.min(maxResults, 20),
          search_depth: "basic",
        }),
        schema: answer,
      });
      return hitsOf(json.results, "content").slice(0, maxResults);
    },
  };
}
