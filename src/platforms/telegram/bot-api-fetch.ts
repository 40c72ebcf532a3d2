import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { type HttpPool, httpPool } from "../../providers/http-pool.ts";

/**
 * Connections a process keeps open to one Bot API root. Calls past it wait
 * for a free one rather than opening more; a worker streaming to hundreds
 * of chats at once has about as many calls in flight, and a long poll holds
 * one connection for its whole wait without holding up the others.
 */
const CONNECTIONS_PER_ROOT = 256;

/** What grammY hands its `fetch` (core/client.ts): a JSON string or a multipart stream. */
interface BotApiInit {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Readable;
  /** grammY's own AbortController (the `abort-controller` package's), which ends the call on its timeout. */
  readonly signal?: Pick<AbortSignal, "aborted" | "addEventListener" | "removeEventListener">;
}

/** The part of a Response that grammY reads: it answers `res.json()` and nothing else. */
interface BotApiResponse {
  readonly ok: boolean;
  readonly status: number;
  json(): Promise<unknown>;
  text(): Promise<string>;
}

let pool: HttpPool | undefined;

/**
 * The `fetch` every grammY client of Switchyard calls the Bot API with
 * (ingress and worker, every account): one undici request over a keep-alive
 * pool shared by the whole process, in place of grammY's default, node-fetch
 * over `node:http`. It costs the calling side some 40% less CPU a call
 * (`npm run bench -- telegram-calls`), and a worker makes about nine calls
 * a streamed turn (issue 36). undici's own `fetch` would cost more than
 * node-fetch: its WHATWG streams and Request/Response objects are what this
 * skips, and grammY only ever reads the answer's JSON.
 *
 * grammY still owns timeouts and retries: the pool sets none of its own
 * (a long poll is held as long as grammY asks), an abort from grammY's
 * signal ends the call wherever it is (queued, connecting, sending,
 * reading), and a refused or reset connection rejects with undici's error,
 * which grammY wraps in an `HttpError` as it did node-fetch's. Redirects
 * are not followed: the Bot API answers none.
 *
 * undici is required at the first call, not at import, so a worker that has
 * not answered anyone yet has not paid for it (and only the part of it this
 * needs: see {@link httpPool}).
 *
 * @example
 * const bot = new Bot(token, { client: { apiRoot, fetch: botApiFetch } });
 */
export const botApiFetch = (async (url: string, init: BotApiInit = {}) => {
  const target = new URL(url);
  const { agent, request } = connections();
  const { statusCode, body } = await request.call(agent, {
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: (init.method ?? "GET") as Dispatcher.HttpMethod,
    ...(init.headers ? { headers: init.headers } : {}),
    ...(init.body !== undefined ? { body: init.body } : {}),
    // undici listens with addEventListener, which grammY's polyfilled signal has.
    ...(init.signal ? { signal: init.signal as AbortSignal } : {}),
  });
  return {
    ok: statusCode >= 200 && statusCode < 300,
    status: statusCode,
    json: () => body.json(),
    text: () => body.text(),
  } satisfies BotApiResponse;
}) as unknown as typeof fetch;

/** The process's pool, made at the first call. */
function connections(): HttpPool {
  pool ??= httpPool({
    connections: CONNECTIONS_PER_ROOT,
    // grammY's timeoutSeconds and the poller's wait decide how long a call may take.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  return pool;
}
