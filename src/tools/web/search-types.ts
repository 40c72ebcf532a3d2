/** One hit, as every provider's answer is reduced to. */
export interface SearchResult {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

export interface SearchRequest {
  readonly query: string;
  readonly maxResults: number;
  readonly signal: AbortSignal;
}

/**
 * A search service behind one small interface, so `web_search` never knows
 * which one it asks. Failures throw `WebSearchError` with a message naming
 * the provider and what to do.
 */
export interface SearchProvider {
  /** The service's name as people know it ("SearxNG", "Brave Search"). */
  readonly label: string;
  search(request: SearchRequest): Promise<readonly SearchResult[]>;
}

/** What a keyed search API needs: Brave's and Tavily's providers take these. */
export interface KeyedSearchSettings {
  readonly apiKey: string;
  readonly timeoutMs: number;
  /** Replaces the service's own address (a proxy, or a test server). */
  readonly url?: string;
  /** The variable the key came from, named when the provider rejects it. */
  readonly keyEnv?: string;
}
