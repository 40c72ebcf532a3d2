import { ProviderError } from "../core/agent/provider.ts";
import { abortedError, type Failure, type FailureContext, timeoutFailure } from "./failure.ts";
import { StreamEndedEarlyError, type StreamProgress } from "./reply-stream.ts";
import { serverSaysRetry } from "./retry-policy.ts";
import { OversizedEventError } from "./watched-fetch.ts";

/**
 * What an attempt threw, as both vendor SDKs throw it. Both SDKs are made by
 * the same generator, so their error classes are alike: the user's abort, a
 * connection timeout, a connection that failed, and an API error with a
 * status and headers. What only one API sends (OpenAI's quota 429,
 * Anthropic's 529) and the settings its messages name are the vendor's, in
 * its own errors file.
 */

/** An SDK's API error: an HTTP status, or none for an `error` event inside a stream. */
export interface SdkApiError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
}

/** The error classes an SDK exports, as `instanceof` needs them. */
export interface SdkErrorClasses<E extends SdkApiError> {
  readonly APIUserAbortError: abstract new (...args: never) => Error;
  readonly APIConnectionTimeoutError: abstract new (...args: never) => Error;
  readonly APIConnectionError: abstract new (...args: never) => Error;
  readonly APIError: abstract new (...args: never) => E;
}

/** What the attempt saw of the reply, for messages that name it. */
export interface AttemptSeen {
  readonly progress: StreamProgress;
  readonly contentType?: string | undefined;
}

/** How one vendor's failures read: the settings its messages name, and what only its API sends. */
export interface VendorFailures<E extends SdkApiError> {
  /** The setting that names the server: "OPENAI_BASE_URL". */
  readonly baseURLSetting: string;
  /** The setting that holds the key: "OPENAI_API_KEY". */
  readonly apiKeySetting: string;
  /** The sentence that tells a person how the server's address should look. */
  readonly checkBaseURL: string;
  /** What a finished stream ends with, as the message about one that did not says it: "a stop reason". */
  readonly finishSignal: string;
  /** The provider's own words from an API error. */
  providerMessage(error: E): string;
  /** A failure only this API has (checked before the common statuses), or undefined. */
  special?(error: E): Failure | undefined;
  /** The message of a refused request (a 4xx the common statuses do not cover). */
  refused?(status: number, said: string): string;
  /** What this API's stream that ended without a finish reason says beyond the common (see {@link endedEarly}). */
  endedEarly?(context: FailureContext, seen: AttemptSeen): Failure | undefined;
}

/**
 * Maps whatever an attempt threw to a {@link Failure}. Anything unforeseen
 * still becomes a clear answer (rule 11) instead of failing the turn, which
 * would only be retried into the same error; `unexpected` carries it to the
 * log. `sdk` is undefined while the SDK is not loaded: nothing it throws can
 * have been thrown.
 */
export function classifyThrown<E extends SdkApiError>(
  sdk: SdkErrorClasses<E> | undefined,
  thrown: unknown,
  context: FailureContext,
  seen: AttemptSeen,
  vendor: VendorFailures<E>,
): Failure {
  const { where } = context;
  if (sdk && thrown instanceof sdk.APIUserAbortError) {
    return { error: abortedError(), retryable: false };
  }
  // Our own clocks run out first; the SDK's timeout is only a backstop set past the budget.
  if (sdk && thrown instanceof sdk.APIConnectionTimeoutError) {
    return timeoutFailure("call", context);
  }
  if (sdk && thrown instanceof sdk.APIConnectionError) {
    return network(
      `Could not reach the model provider at ${where}. Check ${vendor.baseURLSetting}.`,
    );
  }
  if (sdk && thrown instanceof sdk.APIError) return classifyStatus(thrown, context, vendor);
  if (thrown instanceof StreamEndedEarlyError) {
    return vendor.endedEarly?.(context, seen) ?? endedEarly(context, seen, vendor);
  }
  if (thrown instanceof OversizedEventError) {
    return badResponse(
      `The model provider at ${where} sent a single stream event of more than ${megabytes(thrown.maxBytes)}, so I stopped reading the reply. Please try again, or ask for something smaller.`,
      false,
    );
  }
  if (thrown instanceof TypeError) {
    // undici reports a connection that dies mid-body as `TypeError: terminated`.
    return network(
      `The connection to the model provider at ${where} broke in the middle of a reply. Try again.`,
    );
  }
  if (thrown instanceof SyntaxError) {
    return badResponse(
      `The model provider at ${where} sent a reply that is not valid JSON. ${vendor.checkBaseURL}`,
      true,
    );
  }
  const name = thrown instanceof Error ? thrown.name : typeof thrown;
  return {
    error: new ProviderError(
      "server",
      `Something went wrong while reading the model's reply (${context.redact(name)}), so I stopped. Please try again.`,
    ),
    retryable: false,
    unexpected: thrown,
  };
}

function classifyStatus<E extends SdkApiError>(
  error: E,
  context: FailureContext,
  vendor: VendorFailures<E>,
): Failure {
  const { status, headers } = error;
  const special = vendor.special?.(error);
  if (special) return special;
  const said = context.redact(cutShort(vendor.providerMessage(error)));
  if (status === undefined) {
    // An `error` event inside an otherwise healthy stream.
    return server(`The model provider failed in the middle of a reply: ${said}`, undefined);
  }
  if (status === 401 || status === 403) {
    return {
      error: new ProviderError(
        "auth",
        `The model provider rejected the API key. Check ${vendor.apiKeySetting}.`,
        status,
      ),
      retryable: false,
    };
  }
  const retryOverride = serverSaysRetry(headers);
  if (status === 429) {
    return {
      error: new ProviderError(
        "rate_limit",
        "The model provider is rate-limiting requests; try again in a minute.",
        status,
      ),
      retryable: retryOverride ?? true,
      headers,
    };
  }
  if (status === 408 || status >= 500) {
    const failure = server(
      `The model provider had a server error (HTTP ${status}). Try again in a few minutes.`,
      status,
    );
    return { ...failure, retryable: retryOverride ?? true, headers };
  }
  const message =
    vendor.refused?.(status, said) ??
    `The model provider refused the request (HTTP ${status}): ${said}`;
  return {
    error: new ProviderError("bad_request", message, status),
    retryable: retryOverride ?? false,
    headers,
  };
}

/**
 * A stream that ended without a finish reason: an empty one may be the wrong
 * address, one that had started was cut off. Both are worth another try.
 */
function endedEarly<E extends SdkApiError>(
  { where }: FailureContext,
  { progress }: AttemptSeen,
  vendor: VendorFailures<E>,
): Failure {
  const check = vendor.checkBaseURL;
  return progress.events === 0
    ? badResponse(
        `The model provider at ${where} sent an empty reply. Please try again. If this keeps happening, ${check.charAt(0).toLowerCase()}${check.slice(1)}`,
        true,
      )
    : badResponse(
        `The model's reply stopped before it was finished (the server at ${where} ended the stream without ${vendor.finishSignal}). Please try again.`,
        true,
      );
}

/** Keeps the start of an API's own words: enough to act on, not a whole page. */
function cutShort(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** The base URL without credentials, query or fragment, for messages and logs; `setting` names it when it is not a URL. */
export function displayURL(baseURL: string, setting: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.origin}${url.pathname}`.replace(/\/$/, "");
  } catch {
    return `(an invalid ${setting})`;
  }
}

function network(message: string): Failure {
  return { error: new ProviderError("network", message), retryable: true };
}

function server(message: string, status: number | undefined): Failure {
  return { error: new ProviderError("server", message, status), retryable: true };
}

export function badResponse(message: string, retryable: boolean): Failure {
  return { error: new ProviderError("bad_response", message), retryable };
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1_048_576) * 10) / 10} MB`;
}
