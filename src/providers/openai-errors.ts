import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { ProviderError } from "../core/agent/provider.ts";
import { serverSaysRetry } from "./retry-policy.ts";

/** A failed attempt, as the retry loop sees it. */
export interface Failure {
  /** What the person is told if this is the last attempt. */
  readonly error: ProviderError;
  readonly retryable: boolean;
  /** Response headers, for `retry-after`. */
  readonly headers?: Headers;
}

/** What the messages may say about where the provider is, and what they must never say. */
export interface FailureContext {
  /** The base URL as shown to people: no credentials, no query. */
  readonly where: string;
  readonly timeoutMs: number;
  /** Removes the API key from text that came from the server. */
  readonly redact: (text: string) => string;
}

/** Thrown by the stream reader when a stream ends without a finish reason. */
export class StreamEndedEarlyError extends Error {
  override readonly name = "StreamEndedEarlyError";
}

export const ABORTED_MESSAGE = "The request to the model was cancelled.";

export function abortedError(): ProviderError {
  return new ProviderError("aborted", ABORTED_MESSAGE);
}

/**
 * Maps whatever an attempt threw to a {@link Failure}, or `undefined` for
 * errors that are not the provider's (a bug of ours), which the caller
 * rethrows as they are.
 */
export function classifyFailure(thrown: unknown, context: FailureContext): Failure | undefined {
  const { where } = context;
  if (thrown instanceof APIUserAbortError) return { error: abortedError(), retryable: false };
  if (thrown instanceof APIConnectionTimeoutError) {
    const seconds = context.timeoutMs / 1000;
    return network(
      `The model provider at ${where} did not answer within ${seconds} s. Check OPENAI_BASE_URL, or try again later.`,
    );
  }
  if (thrown instanceof APIConnectionError) {
    return network(`Could not reach the model provider at ${where}. Check OPENAI_BASE_URL.`);
  }
  if (thrown instanceof APIError) return classifyStatus(thrown, context);
  if (thrown instanceof StreamEndedEarlyError || thrown instanceof TypeError) {
    // undici reports a connection that dies mid-body as `TypeError: terminated`.
    return network(
      `The connection to the model provider at ${where} broke in the middle of a reply. Try again.`,
    );
  }
  if (thrown instanceof SyntaxError) {
    return {
      error: new ProviderError(
        "server",
        `The model provider at ${where} sent a reply that is not valid JSON. Check that OPENAI_BASE_URL points to an OpenAI-compatible API.`,
      ),
      retryable: true,
    };
  }
  return undefined;
}

function classifyStatus(error: APIError, context: FailureContext): Failure {
  const { status, headers } = error;
  const said = context.redact(providerMessage(error));
  if (status === undefined) {
    // An `error` event inside an otherwise healthy stream.
    return server(`The model provider failed in the middle of a reply: ${said}`, undefined);
  }
  if (status === 401 || status === 403) {
    return {
      error: new ProviderError(
        "auth",
        "The model provider rejected the API key. Check OPENAI_API_KEY.",
        status,
      ),
      retryable: false,
    };
  }
  const retryOverride = serverSaysRetry(headers);
  if (status === 429) {
    // OpenAI answers 429 for an exhausted account too; waiting will not fix that.
    if (error.code === "insufficient_quota" || error.type === "insufficient_quota") {
      return {
        error: new ProviderError(
          "rate_limit",
          "The model provider's account has run out of quota or credits. Add credits or raise the limit, then try again.",
          status,
        ),
        retryable: false,
      };
    }
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
  return {
    error: new ProviderError(
      "bad_request",
      `The model provider refused the request (HTTP ${status}): ${said}`,
      status,
    ),
    retryable: retryOverride ?? false,
    headers,
  };
}

/** The provider's own words: the error body's `message`, else the raw body the SDK put in its message. */
function providerMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  const text =
    typeof body?.message === "string"
      ? body.message
      : error.message.replace(/^\d{3} /, "").replace(/^status code \(no body\)$/, "no details");
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function network(message: string): Failure {
  return { error: new ProviderError("network", message), retryable: true };
}

function server(message: string, status: number | undefined): Failure {
  return { error: new ProviderError("server", message, status), retryable: true };
}

/** The base URL without credentials, query or fragment, for messages and logs. */
export function displayURL(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.origin}${url.pathname}`.replace(/\/$/, "");
  } catch {
    return "(an invalid OPENAI_BASE_URL)";
  }
}

/** Replaces every occurrence of `secret` in text that may reach a person or a log. */
export function redactor(secret: string | undefined): (text: string) => string {
  if (!secret) return (text) => text;
  return (text) => text.replaceAll(secret, "[redacted]");
}
