import { FetchError, FetchRefusedError } from "./errors.ts";

const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * Reads the URL the model asked for, or a redirect's `Location` against the
 * page that sent it. Only http(s) without credentials goes through: other
 * schemes (`file:`, `gopher:`, `data:`) are not web pages, and credentials in
 * a URL the model wrote would be sent to whoever the page points at. Where
 * the host leads is checked later, when it is resolved (`guarded-agent.ts`).
 *
 * A bare `example.com/page` reads as `https://example.com/page`: models
 * often drop the scheme. The fragment is dropped: it never reaches the server.
 *
 * @example
 * fetchTarget("example.com/a#top").href            // "https://example.com/a"
 * fetchTarget("/b", new URL("https://example.com")).href // "https://example.com/b"
 * fetchTarget("file:///etc/passwd")                // throws FetchRefusedError
 */
export function fetchTarget(text: string, base?: URL): URL {
  const trimmed = text.trim();
  const url =
    parseUrl(trimmed, base) ??
    (base === undefined && !HAS_SCHEME.test(trimmed) ? parseUrl(`https://${trimmed}`) : undefined);
  if (url === undefined) {
    throw new FetchError(
      `${JSON.stringify(shorten(trimmed))} is not a URL. Give a full address such as https://example.com/page.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchRefusedError(
      `${url.protocol} URLs are not web pages`,
      "fetch_url reads http and https addresses only.",
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new FetchRefusedError(
      "the URL holds a user name or password",
      "fetch_url never sends credentials; give the address without them.",
    );
  }
  url.hash = "";
  return url;
}

/** `URL.parse` arrived in Node 20.18; the engines field promises any Node 20. */
function parseUrl(text: string, base?: URL): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
