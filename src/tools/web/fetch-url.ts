import type { Response } from "undici";
import { z } from "zod";
import { untrustedText } from "../../core/agent/untrusted-text.ts";
import { DEFAULT_WEB_FETCH, type WebFetchConfig } from "../../core/config/web-section.ts";
import { defineTool } from "../../core/tools/tool.ts";
import { addressPolicy } from "./address-policy.ts";
import { readCapped } from "./capped-body.ts";
import { FetchError, FetchRefusedError } from "./errors.ts";
import { fetchTarget } from "./fetch-target.ts";
import { guardedAgent, type HostLookup, systemLookup } from "./guarded-agent.ts";
import { pageKind, parseMediaType, type ReadablePage, readablePage } from "./readable.ts";
import { undici } from "./undici.ts";

/** Redirects followed before giving up; each hop is checked like the first request. */
export const MAX_REDIRECTS = 5;

export interface FetchUrlDeps {
  /** Resolves host names; tests map `public.example` to 127.0.0.1 with it. */
  readonly lookup?: HostLookup;
}

const ACCEPT =
  "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,text/*;q=0.7,*/*;q=0.1";
const USER_AGENT = "Switchyard-fetch_url/0.1 (an assistant reading a page for a person)";
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * `fetch_url`: reads one web page as text.
 *
 * It is resident (not `defer`): its schema is one string, cheaper than a
 * single search result, and it is the natural next call after `web_search`
 * and whenever a person pastes a link; deferring it would cost a discovery
 * round trip on exactly those turns. Curated modes still leave it to
 * discovery, like every tool outside their essential set.
 *
 * It has no capability: it needs nothing from the host but the network.
 * Operators who do not want it switch it off like any tool (`fetch_url: off`).
 */
export function fetchUrlTool(
  settings: WebFetchConfig = DEFAULT_WEB_FETCH,
  deps: FetchUrlDeps = {},
) {
  return defineTool({
    id: "fetch_url",
    description:
      "Reads a public web page and returns its text: HTML as markdown, JSON pretty-printed, plain text as is. Use it to read a link the person shared or a search result. Long pages are cut short.",
    parameters: z.object({
      url: z
        .string()
        .min(1)
        .max(4_096)
        .describe("The http or https address to read, e.g. https://example.com/page."),
    }),
    execute: ({ url }, ctx) => fetchPage(url, settings, ctx.signal, deps.lookup),
  });
}

/**
 * Fetches `url` and returns the text the model sees. Throws
 * {@link FetchRefusedError} when the URL or any redirect leads somewhere
 * the policy forbids (nothing is sent there), {@link FetchError} when the
 * page cannot be read; an abort of `signal` rethrows its reason.
 */
export async function fetchPage(
  url: string,
  settings: WebFetchConfig,
  signal: AbortSignal,
  lookup: HostLookup = systemLookup,
): Promise<string> {
  let current = fetchTarget(url);
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const dispatcher = guardedAgent(addressPolicy(settings), lookup);
  try {
    const seen = [current.href];
    for (;;) {
      const response = await undici().fetch(current, {
        redirect: "manual",
        dispatcher,
        signal: AbortSignal.any([signal, deadline]),
        headers: { accept: ACCEPT, "user-agent": USER_AGENT },
      });
      if (!REDIRECTS.has(response.status)) return await render(response, current, settings);
      await response.body?.cancel();
      const next = nextHop(response, current, seen);
      seen.push(next.href);
      current = next;
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    if (deadline.aborted) {
      throw new FetchError(
        `${current.href} did not answer within ${seconds(settings.timeoutMs)}. Try again later, or find another source.`,
      );
    }
    throw explain(error, current);
  } finally {
    await dispatcher.destroy().catch(() => {});
  }
}

function nextHop(response: Response, from: URL, seen: readonly string[]): URL {
  const location = response.headers.get("location");
  if (location === null) {
    throw new FetchError(
      `${from.href} answered HTTP ${response.status} (a redirect) without saying where to. The site is broken; try another source.`,
    );
  }
  const next = fetchTarget(location, from);
  if (seen.includes(next.href)) {
    throw new FetchError(
      `${seen[0]} redirects in a loop (${[...seen, next.href].join(" -> ")}). The site is broken; try another source.`,
    );
  }
  if (seen.length > MAX_REDIRECTS) {
    throw new FetchError(
      `${seen[0]} redirected more than ${MAX_REDIRECTS} times (last to ${next.href}). Try the final address directly, or another source.`,
    );
  }
  return next;
}

async function render(response: Response, url: URL, settings: WebFetchConfig): Promise<string> {
  if (!response.ok) {
    await response.body?.cancel();
    throw new FetchError(
      `${url.href} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}. ${statusHint(response.status)}`,
    );
  }
  const type = parseMediaType(response.headers.get("content-type"));
  const kind = pageKind(type);
  if (kind === undefined) {
    await response.body?.cancel();
    throw new FetchError(
      `${url.href} is ${type.essence}, which is not text. fetch_url reads HTML, plain text and JSON.`,
    );
  }
  const body = await readCapped(response.body, settings.maxBytes);
  const page = readablePage(body.bytes, type, kind);
  if (page === undefined) {
    throw new FetchError(
      `${url.href} is binary data, not text. fetch_url reads HTML, plain text and JSON.`,
    );
  }
  return pageText(page, url, body.truncated, settings);
}

/**
 * What the model reads of a page: the address (ours), the title and text as
 * untrusted text named by that address (the site's words), then our notes.
 */
function pageText(
  page: ReadablePage,
  url: URL,
  truncated: boolean,
  settings: WebFetchConfig,
): string {
  const notes: string[] = [];
  if (page.text === "") {
    notes.push(
      "(The page has no readable text. It may be built by JavaScript, which fetch_url does not run.)",
    );
  }
  if (truncated) {
    notes.push(
      `[truncated: stopped reading after ${bytes(settings.maxBytes)}; the page is longer]`,
    );
  }
  const shown = page.text.slice(0, settings.maxChars);
  if (shown !== page.text) {
    notes.push(
      `[truncated: showing the first ${settings.maxChars} of ${page.text.length} characters]`,
    );
  }
  const words = [...(page.title === undefined ? [] : [`Title: ${page.title}`]), shown];
  const site = words.filter((w) => w !== "").join("\n\n");
  const block = site === "" ? [] : [untrustedText(`fetch_url ${url.href}`, site)];
  return [`URL: ${url.href}`, ...block, ...notes].join("\n\n");
}

function statusHint(status: number): string {
  if (status === 404 || status === 410) return "The page does not exist; check the address.";
  if (status === 401 || status === 403) return "The site needs a login or does not serve bots.";
  if (status === 429) return "The site is rate limiting; try again later.";
  if (status >= 500) return "The site has a problem; try again later.";
  return "The page could not be read.";
}

/** undici wraps connection failures in `TypeError: fetch failed`; the cause says what happened. */
function explain(error: unknown, url: URL): Error {
  const cause = error instanceof TypeError && error.cause !== undefined ? error.cause : error;
  if (cause instanceof FetchRefusedError || cause instanceof FetchError) return cause;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const host = url.host;
  if (code === "ECONNREFUSED") return new FetchError(`${host} refused the connection.`);
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") {
    return new FetchError(`${host} closed the connection before answering. Try again later.`);
  }
  if (typeof code === "string" && /CERT|TLS|SSL/.test(code)) {
    return new FetchError(
      `${host} has no valid TLS certificate (${code}); fetch_url will not read it.`,
    );
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return new FetchError(`could not read ${url.href}: ${message}`);
}

function seconds(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

function bytes(count: number): string {
  if (count >= 1_000_000) return `${Math.round(count / 100_000) / 10} MB`;
  if (count >= 1_000) return `${Math.round(count / 100) / 10} kB`;
  return `${count} bytes`;
}
