import { pipeline, Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Dispatcher } from "undici";
import { type HttpPool, httpPool } from "./http-pool.ts";

let pool: HttpPool | undefined;

/** The body of each reply {@link modelFetch} gave as headers only: see {@link socketBody}. */
const socketBodies = new WeakMap<Response, Readable>();

/**
 * The `fetch` the OpenAI-compatible provider hands its SDK: one undici
 * request over a keep-alive pool, in place of Node's `fetch`. A worker with
 * a thousand replies streaming at once reads some 170 network chunks a
 * reply; through `fetch` each chunk passed undici's fetch machinery and two
 * layers of WHATWG streams, about a fifth of the worker's CPU (issue 36).
 *
 * A successful reply comes back as a `Response` with its headers and no
 * body: the body stays the socket's Node stream, which the provider reads
 * itself ({@link socketBody}, event-stream.ts). The SDK reads nothing of a
 * successful streamed reply (`.asResponse()`), and it reads a failed one
 * whole, so a failure comes back as an ordinary `Response`. It fails as
 * `fetch` fails: a network error is a `TypeError("fetch failed")` whose
 * cause is undici's error, an abort rejects with the signal's reason.
 *
 * A body the server compressed (`content-encoding`: gzip, deflate, br,
 * which `fetch` undoes and a proxy may send though it was not asked to) is
 * decompressed as it comes, the encoding header dropped as `fetch` does.
 *
 * A call it cannot make this way (a `Request` object, a body that is not
 * text or bytes) goes through Node's `fetch` unchanged, and so does one the
 * server redirects (a base URL that moved, `http` sent on to `https`):
 * `fetch` follows redirects, and a bot that worked before must not stop.
 *
 * @example
 * const client = sdk.withOptions({ fetch: modelFetch });
 * const response = await client.chat.completions.create(body).asResponse();
 * readEventStream(socketBody(response) ?? response.body, watch, onEvent);
 */
export const modelFetch: typeof fetch = async (input, init = {}) => {
  const { body } = init;
  const plainBody = body === undefined || body === null || typeof body === "string";
  if (!(typeof input === "string" || input instanceof URL) || !(plainBody || isBytes(body))) {
    return fetch(input, init);
  }
  const target = new URL(input);
  pool ??= httpPool({ connections: null });
  let reply: Dispatcher.ResponseData;
  try {
    reply = await pool.request.call(pool.agent, {
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: (init.method ?? "GET").toUpperCase() as Dispatcher.HttpMethod,
      headers: Object.fromEntries(new Headers(init.headers)),
      body: body ?? null,
      ...(init.signal ? { signal: init.signal } : {}),
    });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new TypeError("fetch failed", { cause: error });
  }
  const { statusCode: status, headers } = reply;
  if (status >= 300 && status < 400) {
    // The text body can be sent again; `fetch` follows the redirect as it always did.
    await reply.body.dump().catch(() => {});
    return fetch(input, init);
  }
  const responseHeaders = new Headers();
  const encoding = String(headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  const decode = DECODERS[encoding];
  const replyBody = decode ? decoded(reply.body, decode()) : reply.body;
  for (const [name, value] of Object.entries(headers)) {
    if (decode && (name === "content-encoding" || name === "content-length")) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined) responseHeaders.append(name, one);
    }
  }
  if (status < 200 || status >= 300) {
    // A failure's body is read whole by the SDK (watched-fetch.ts keeps only its start).
    const web = Readable.toWeb(replyBody) as ReadableStream<Uint8Array>;
    return new Response(web, { status, headers: responseHeaders });
  }
  const response = new Response(null, { status, headers: responseHeaders });
  socketBodies.set(response, replyBody);
  return response;
};

/** What undoes each content encoding `fetch` undoes. */
const DECODERS: Partial<Record<string, () => NodeJS.ReadWriteStream & Readable>> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The socket's body through `decoder`: an error of either ends the other, and reaches the reader. */
function decoded(body: Readable, decoder: NodeJS.ReadWriteStream & Readable): Readable {
  pipeline(body, decoder, () => {});
  return decoder;
}

/**
 * The body of a successful reply {@link modelFetch} made, as the socket's
 * Node stream; undefined for a reply it did not make. Reading it is the
 * caller's to do (or to cancel: destroying it ends the request).
 */
export function socketBody(response: Response): Readable | undefined {
  return socketBodies.get(response);
}

function isBytes(body: unknown): body is Uint8Array {
  return body instanceof Uint8Array;
}

/** A fetch whose signal aborted rejects with the signal's reason, an `AbortError`. */
export function isAbort(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && "name" in error && error.name === "AbortError"
  );
}
