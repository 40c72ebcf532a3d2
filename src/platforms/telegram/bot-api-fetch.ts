import { createRequire } from "node:module";
import type { Readable } from "node:stream";
import type { Agent, Dispatcher } from "undici";

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

/** undici's request API, called on a dispatcher: what `Dispatcher.prototype.request` is. */
type RequestFn = (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

let pool: { agent: Agent; request: RequestFn } | undefined;

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
 * needs: see {@link connections}).
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

/**
 * The process's pool, made at the first call. Its two modules are required
 * by path rather than through undici's entry point, which would also set
 * undici 7's Agent as the process's global dispatcher when none is set yet:
 * the one discord.js's undici 6 and Node's own fetch then send through, and
 * discord.js's uploads go astray on it (src/testing/fakes/multipart.ts). A
 * Telegram bot's first call must not change how a Discord bot in the same
 * process posts. The two also load in a third of the time and half the
 * memory of the whole package. undici is pinned (package.json), and
 * test/integration/telegram-bot-api-fetch.test.ts runs every call grammY
 * makes through them.
 */
function connections(): { agent: Agent; request: RequestFn } {
  if (pool) return pool;
  const require = createRequire(import.meta.url);
  const AgentClass = require("undici/lib/dispatcher/agent.js") as typeof Agent;
  const request = require("undici/lib/api/api-request.js") as RequestFn;
  const agent = new AgentClass({
    connections: CONNECTIONS_PER_ROOT,
    // grammY's timeoutSeconds and the poller's wait decide how long a call may take.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  pool = { agent, request };
  return pool;
}
