import { namedError } from "../../core/named-error.ts";

/**
 * Why a web tool call did not produce a page or results. The tool runner turns
 * a thrown error into the call's result (`fetch_url failed: <message>`), so
 * each message is written for the model to read and relay to the person:
 * what happened, and what to do instead.
 */

export const PUBLIC_ONLY_HINT = "fetch_url only reads public web pages.";

/** For addresses an operator may open up, such as a self-hosted wiki on the office network. */
export const INTERNAL_HOST_HINT =
  "fetch_url only reads public web pages; an operator can let it reach an internal host with web.fetch.allow_hosts.";

/**
 * `fetch_url` would not go there: a private or metadata address, a scheme
 * other than http(s), credentials in the URL. Nothing was sent.
 *
 * @example
 * new FetchRefusedError("10.0.0.1 is a private address")
 * // message: "refused: 10.0.0.1 is a private address. fetch_url only reads public web pages."
 */
export class FetchRefusedError extends namedError("FetchRefusedError") {
  constructor(
    /** The bare reason, e.g. "10.0.0.1 is a private address". */
    readonly reason: string,
    hint = PUBLIC_ONLY_HINT,
  ) {
    super(`refused: ${reason}. ${hint}`);
  }
}

/** The page could not be read: the server failed, answered an error, took too long or sent something unreadable. */
export class FetchError extends namedError("FetchError") {}

/** The search provider did not answer with results. The message names the provider and the fix. */
export class WebSearchError extends namedError("WebSearchError") {
  constructor(
    readonly provider: string,
    message: string,
  ) {
    super(message);
  }
}
