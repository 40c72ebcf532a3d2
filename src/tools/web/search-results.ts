import type { z } from "zod";
import type { SearchResult } from "./search-types.ts";

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
