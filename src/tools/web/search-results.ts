import { z } from "zod";
import type { SearchCall } from "./search-http.ts";
import type { KeyedSearchSettings, SearchResult } from "./search-types.ts";

/**
 * The hits of an answer that have the expected shape. One odd entry (no url,
 * a number for a title) is skipped rather than failing the whole search.
 */
export function resultsOf<T>(
  entries: readonly unknown[],
  schema: z.ZodType<T>,
  toResult: (hit: T) => SearchResult,
): SearchResult[] {
  const results: SearchResult[] = [];
  for (const entry of entries) {
    const parsed = schema.safeParse(entry);
    if (parsed.success) results.push(toResult(parsed.data));
  }
  return results;
}

const HIT = z.object({
  url: z.string(),
  title: z.string().optional(),
  snippet: z.string().optional(),
});

/**
 * The hits of an answer in the shape every provider uses: a `url`, a `title`,
 * and the snippet under the provider's own name for it (`content`,
 * `description`).
 */
export function hitsOf(entries: readonly unknown[], snippetKey: string): SearchResult[] {
  // The provider's snippet field is read as `snippet`; whatever else a hit holds is dropped.
  const renamed = entries.map((entry) =>
    typeof entry === "object" && entry !== null
      ? { ...entry, snippet: (entry as Record<string, unknown>)[snippetKey] }
      : entry,
  );
  return resultsOf(renamed, HIT, (h) => ({
    title: h.title ?? "",
    url: h.url,
    snippet: h.snippet ?? "",
  }));
}

/** `http://host/searx` and `http://host/searx/` both mean the folder, so paths join under it. */
export function baseWithSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}

/** What to do about an error status from an API that takes a key. */
export function keyHint(
  label: string,
  keyEnv = "web.search.api_key_env",
): (status: number) => string {
  return (status) => {
    if (status === 401 || status === 403 || status === 422) {
      return `${label} rejected the API key: the operator should check ${keyEnv}.`;
    }
    if (status === 429) return `${label}'s rate limit or quota is used up; try again later.`;
    return "Search is down; answer without it and tell the person.";
  };
}

/**
 * The parts of a search call that come from a keyed provider's settings: its
 * timeout, the key kept out of every message, and the hint that names where
 * the key came from when the provider rejects it.
 */
export function keyedCallParts(
  label: string,
  settings: KeyedSearchSettings,
  signal: AbortSignal,
): Pick<SearchCall<unknown>, "label" | "timeoutMs" | "signal" | "secrets" | "hint"> {
  return {
    label,
    timeoutMs: settings.timeoutMs,
    signal,
    secrets: [settings.apiKey],
    hint: keyHint(label, settings.keyEnv),
  };
}
