/**
 * A local SearxNG that speaks its real JSON API: `GET {base}/search?q=...&format=json`
 * answers `{ query, number_of_results, results: [{ url, title, content, engine }], ... }`.
 * Like a stock instance it answers 403 to JSON requests unless JSON is
 * enabled (`search.formats` in settings.yml).
 *
 * @example
 * const searx = await startFakeSearxng();
 * searx.results = [{ url: "https://a.example", title: "A", content: "About A" }];
 * // point web.search.url at searx.url, search, then read searx.requests
 */
import { clientGone, listenLocal } from "../../src/testing/fakes/local-server.ts";

export interface SearxngHit {
  url: string;
  title?: string;
  content?: string;
  engine?: string;
}

/** Instead of results: an error status, a raw body, or no answer at all. */
export interface SearxngOverride {
  status?: number;
  rawBody?: string;
  hang?: boolean;
}

export interface FakeSearxng {
  /** The instance's base URL, including `basePath`. */
  readonly url: string;
  /** Every search request, in arrival order. */
  readonly requests: { query: string | null; format: string | null; path: string }[];
  results: SearxngHit[];
  /** Applies to every later request until cleared. */
  override: SearxngOverride | undefined;
  /** Resolves when a client gives up on a request the fake is holding (`hang`). */
  readonly abandoned: Promise<void>;
  close(): Promise<void>;
}

export async function startFakeSearxng(
  options: { jsonEnabled?: boolean; basePath?: string } = {},
): Promise<FakeSearxng> {
  const basePath = options.basePath ?? "";
  let markAbandoned: () => void = () => {};
  const abandoned = new Promise<void>((resolve) => {
    markAbandoned = resolve;
  });
  const fake: Omit<FakeSearxng, "url" | "close"> = {
    requests: [],
    results: [],
    override: undefined,
    abandoned,
  };
  const server = await listenLocal(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://searxng.local");
    if (req.method !== "GET" || url.pathname !== `${basePath}/search`) {
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
      return;
    }
    const query = url.searchParams.get("q");
    const format = url.searchParams.get("format");
    fake.requests.push({ query, format, path: url.pathname });
    const override = fake.override;
    if (override?.hang) {
      await clientGone(req, res);
      markAbandoned();
      return;
    }
    if (override?.status !== undefined || override?.rawBody !== undefined) {
      res
        .writeHead(override.status ?? 200, { "content-type": "application/json" })
        .end(override.rawBody ?? "");
      return;
    }
    if (format !== "json") {
      res.writeHead(200, { "content-type": "text/html" }).end("<html>results page</html>");
      return;
    }
    if (options.jsonEnabled === false) {
      res.writeHead(403, { "content-type": "text/html" }).end("<h1>403 Forbidden</h1>");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        query,
        number_of_results: fake.results.length,
        results: fake.results.map((hit) => ({ engine: "duckduckgo", score: 1, ...hit })),
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      }),
    );
  });
  return Object.assign(fake, { url: `${server.url}${basePath}`, close: server.close });
}
