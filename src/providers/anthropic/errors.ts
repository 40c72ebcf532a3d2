import type * as AnthropicSDK from "@anthropic-ai/sdk";
import { ProviderError } from "../../core/agent/provider.ts";
import { abortedError, type Failure, type FailureContext, timeoutFailure } from "../failure.ts";
import { StreamEndedEarlyError, type StreamProgress } from "../reply-stream.ts";
import { serverSaysRetry } from "../retry-policy.ts";
import { OversizedEventError } from "../watched-fetch.ts";

/**
 * Anthropic's failures onto {@link ProviderError}'s kinds. The wording is the
 * OpenAI-compatible provider's, with Anthropic's settings named; 529
 * `overloaded_error` (as a status, or as an `error` event before any text) is
 * a `server` failure worth retrying, with status 529 so a fallback can tell it
 * apart.
 */

/** Anthropic's "overloaded" status, which no other API sends. */
export const OVERLOADED_STATUS = 529;

const CHECK_BASE_URL =
  "Check that ANTHROPIC_BASE_URL points to the Anthropic API (e.g. https://api.anthropic.com, without /v1).";

export function classifyFailure(
  sdk: typeof AnthropicSDK,
  thrown: unknown,
  context: FailureContext,
  progress: StreamProgress,
): Failure {
  const { where } = context;
  if (thrown instanceof sdk.APIUserAbortError) return { error: abortedError(), retryable: false };
  if (thrown instanceof sdk.APIConnectionTimeoutError) return timeoutFailure("call", context);
  if (thrown instanceof sdk.APIConnectionError) {
    return {
      error: new ProviderError(
        "network",
        `Could not reach the model provider at ${where}. Check ANTHROPIC_BASE_URL.`,
      ),
      retryable: true,
    };
  }
  if (thrown instanceof sdk.APIError) return classifyStatus(thrown, context);
  if (thrown instanceof StreamEndedEarlyError) {
    const message =
      progress.events === 0
        ? `The model provider at ${where} sent an empty reply. Please try again. If this keeps happening, ${CHECK_BASE_URL.charAt(0).toLowerCase()}${CHECK_BASE_URL.slice(1)}`
        : `The model's reply stopped before it was finished (the server at ${where} ended the stream without a stop reason). Please try again.`;
    return { error: new ProviderError("bad_response", message), retryable: true };
  }
  if (thrown instanceof OversizedEventError) {
    return {
      error: new ProviderError(
        "bad_response",
        `The model provider at ${where} sent a single stream event of more than ${Math.round(thrown.maxBytes / 104_857.6) / 10} MB, so I stopped reading the reply. Please try again, or ask for something smaller.`,
      ),
      retryable: false,
    };
  }
  if (thrown instanceof TypeError) {
    return {
      error: new ProviderError(
        "network",
        `The connection to the model provider at ${where} broke in the middle of a reply. Try again.`,
      ),
      retryable: true,
    };
  }
  if (thrown instanceof SyntaxError) {
    return {
      error: new ProviderError(
        "bad_response",
        `The model provider at ${where} sent a reply that is not valid JSON. ${CHECK_BASE_URL}`,
      ),
      retryable: true,
    };
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

function classifyStatus(error: AnthropicSDK.APIError, context: FailureContext): Failure {
  const { status, headers } = error;
  const said = context.redact(providerMessage(error));
  const type = typeof error.type === "string" ? error.type : undefined;
  if (status === undefined) {
    // An `error` event inside a stream that had started: overloaded is the usual one.
    if (type === "overloaded_error") return overloaded();
    return {
      error: new ProviderError(
        "server",
        `The model provider failed in the middle of a reply: ${said}`,
      ),
      retryable: true,
    };
  }
  if (status === 401 || status === 403) {
    return {
      error: new ProviderError(
        "auth",
        "The model provider rejected the API key. Check ANTHROPIC_API_KEY.",
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
  if (status === OVERLOADED_STATUS) return { ...overloaded(), headers };
  if (status === 408 || status >= 500) {
    return {
      error: new ProviderError(
        "server",
        `The model provider had a server error (HTTP ${status}). Try again in a few minutes.`,
        status,
      ),
      retryable: retryOverride ?? true,
      headers,
    };
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

function overloaded(): Failure {
  return {
    error: new ProviderError(
      "server",
      "The model provider is overloaded right now (HTTP 529). Please try again in a few minutes.",
      OVERLOADED_STATUS,
    ),
    retryable: true,
  };
}

/** Anthropic's `{ type: "error", error: { type, message } }`, else the SDK's message. */
function providerMessage(error: AnthropicSDK.APIError): string {
  const body = error.error as { error?: { message?: unknown } } | undefined;
  const text =
    typeof body?.error?.message === "string"
      ? body.error.message
      : error.message.replace(/^\d{3} /, "");
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** The base URL without credentials, query or fragment, for messages and logs. */
export function displayURL(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.origin}${url.pathname}`.replace(/\/$/, "");
  } catch {
    return "(an invalid ANTHROPIC_BASE_URL)";
  }
}
