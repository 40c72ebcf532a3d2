/**
 * Local Brave Search and Tavily APIs that speak their real wire shapes:
 *
 * - Brave: `GET /res/v1/web/search?q=&count=` with `X-Subscription-Token`;
 *   answers `{ type: "search", web: { results: [{ title, url, description }] } }`,
 *   or 422 `{ type: "ErrorResponse", error: { code, detail } }` for a bad token.
 * - Tavily: `POST /search` with a JSON body and `Authorization: Bearer <key>`;
 *   answers `{ query, results: [{ title, url, content, score }] }`, or 401
 *   `{ detail: { error } }` for a bad key.
 */
import { listenLocal, readBody } from "../../src/testing/fakes/local-server.ts";

export interface ApiHit {
  title: string;
  url: string;
  /** Brave's `description`, Tavily's `content`. */
  snippet: string;
}

export interface RecordedSearch {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly query: Record<string, string>;
  /** The parsed JSON body (Tavily). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary request fields.
  readonly body: any;
}

export interface FakeSearchApi {
  readonly url: string;
  readonly requests: RecordedSearch[];
  results: ApiHit[];
  close(): Promise<void>;
}

export async function startFakeBrave(options: { apiKey: string }): Promise<FakeSearchApi> {
  const requests: RecordedSearch[] = [];
  const fake = { requests, results: [] as ApiHit[] };
  const server = await listenLocal((req, res) => {
    const url = new URL(req.url ?? "/", "http://brave.local");
    requests.push(record(req.method, url, req.headers, undefined));
    if (req.method !== "GET" || url.pathname !== "/res/v1/web/search") {
      res.writeHead(404).end();
      return;
    }
    const token = req.headers["x-subscription-token"];
    if (token !== options.apiKey) {
      // Brave echoes nothing of the token; this fake does, to prove it is redacted.
      res.writeHead(422, { "content-type": "application/json" }).end(
        JSON.stringify({
          type: "ErrorResponse",
          error: {
            id: "0f1e2d3c",
            status: 422,
            code: "SUBSCRIPTION_TOKEN_INVALID",
            detail: `The provided subscription token is invalid: ${String(token)}`,
          },
          time: 1_700_000_000,
        }),
      );
      return;
    }
    const count = Number(url.searchParams.get("count") ?? 20);
    const results = fake.results.slice(0, count).map((hit) => ({
      type: "search_result",
      title: hit.title,
      url: hit.url,
      description: hit.snippet,
      language: "en",
    }));
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        type: "search",
        query: { original: url.searchParams.get("q") },
        ...(results.length === 0 ? {} : { web: { type: "search", results } }),
      }),
    );
  });
  return Object.assign(fake, { url: server.url, close: server.close });
}

export async function startFakeTavily(options: { apiKey: string }): Promise<FakeSearchApi> {
  const requests: RecordedSearch[] = [];
  const fake = { requests, results: [] as ApiHit[] };
  const server = await listenLocal(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://tavily.local");
    const raw = await readBody(req);
    const body = raw === "" ? undefined : JSON.parse(raw);
    requests.push(record(req.method, url, req.headers, body));
    if (req.method !== "POST" || url.pathname !== "/search") {
      res.writeHead(404).end();
      return;
    }
    if (req.headers.authorization !== `Bearer ${options.apiKey}`) {
      res
        .writeHead(401, { "content-type": "application/json" })
        .end(JSON.stringify({ detail: { error: "Unauthorized: missing or invalid API key." } }));
      return;
    }
    const max = Number(body?.max_results ?? 5);
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        query: body?.query,
        answer: null,
        images: [],
        results: fake.results.slice(0, max).map((hit, i) => ({
          title: hit.title,
          url: hit.url,
          content: hit.snippet,
          score: 1 - i / 10,
          raw_content: null,
        })),
        response_time: "0.42",
      }),
    );
  });
  return Object.assign(fake, { url: server.url, close: server.close });
}

function record(
  method: string | undefined,
  url: URL,
  headers: RecordedSearch["headers"],
  body: unknown,
): RecordedSearch {
  return {
    method: method ?? "GET",
    path: url.pathname,
    headers,
    query: Object.fromEntries(url.searchParams),
    body,
  };
}
