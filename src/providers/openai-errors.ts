import type { APIError } from "openai";
import { ProviderError } from "../core/agent/provider.ts";
import { abortedError, type Failure, type FailureContext, timeoutFailure } from "./failure.ts";
import { openAISdkLoaded } from "./openai-sdk.ts";
import { StreamEndedEarlyError, type StreamProgress } from "./reply-stream.ts";
import { serverSaysRetry } from "./retry-policy.ts";
import { OversizedEventError } from "./watched-fetch.ts";

/** What the attempt saw of the reply, for messages that name it. */
export interface AttemptSeen {
  readonly progress: StreamProgress;
  readonly contentType?: string | undefined;
}

const CHECK_BASE_URL =
  "Check that OPENAI_BASE_URL points to an OpenAI-compatible API (it usually ends in /v1).";

/**
 * Maps whatever an attempt threw to a {@link Failure}. Anything unforeseen
 * still becomes a clear answer (rule 11) instead of failing the turn, which
 * would only be retried into the same error; `unexpected` carries it to the log.
 */
export function classifyFailure(
  thrown: unknown,
  context: FailureContext,
  seen: AttemptSeen,
): Failure {
  const { where } = context;
  const sdk = openAISdkLoaded();
  if (sdk && thrown instanceof sdk.APIUserAbortError) {
    return { error: abortedError(), retryable: false };
  }
  // Our own clocks run out first; the SDK's timeout is only a backstop set past the budget.
  if (sdk && thrown instanceof sdk.APIConnectionTimeoutError)
    return timeoutFailure("call", context);
  if (sdk && thrown instanceof sdk.APIConnectionError) {
    return network(`Could not reach the model provider at ${where}. Check OPENAI_BASE_URL.`);
  }
  if (sdk && thrown instanceof sdk.APIError) return classifyStatus(thrown, context);
  if (thrown instanceof StreamEndedEarlyError) return endedEarly(context, seen);
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
      `The model provider at ${where} sent a reply that is not valid JSON. ${CHECK_BASE_URL}`,
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

/** A stream that ended without a finish reason: what came before it says why. */
function endedEarly(context: FailureContext, seen: AttemptSeen): Failure {
  const { where } = context;
  const { events, unreadable } = seen.progress;
  if (events === 0) {
    const type = seen.contentType?.split(";")[0]?.trim().toLowerCase();
    if (type && type !== "text/event-stream") {
      const what = type === "text/html" ? "a web page (text/html)" : `"${type}"`;
      return badResponse(
        `The model provider at ${where} answered with ${what} instead of a stream of chat completion chunks. ${CHECK_BASE_URL}`,
        false,
      );
    }
    return badResponse(
      `The model provider at ${where} sent an empty reply. Please try again. If this keeps happening, ${CHECK_BASE_URL.charAt(0).toLowerCase()}${CHECK_BASE_URL.slice(1)}`,
      true,
    );
  }
  if (unreadable > 0) {
    return badResponse(
      `The model provider at ${where} sent a reply I could not read (${unreadable} of its ${events} stream events were not chat completion chunks). ${CHECK_BASE_URL}`,
      true,
    );
  }
  return badResponse(
    `The model's reply stopped before it was finished (the server at ${where} ended the stream without saying it was done). Please try again.`,
    true,
  );
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
  const page = webPageTitle(said);
  const message =
    page === undefined
      ? `The model provider refused the request (HTTP ${status}): ${said}`
      : `The model provider refused the request (HTTP ${status}) with a web page${page ? ` titled "${page}"` : ""} instead of an API error. ${CHECK_BASE_URL}`;
  return {
    error: new ProviderError("bad_request", message, status),
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

/**
 * A proxy or a wrong path answers with an HTML page, which is no use in a
 * chat: its title (possibly empty) when the text is one, else `undefined`.
 */
function webPageTitle(text: string): string | undefined {
  if (!/^\s*<(!doctype html|html|head|body)\b/i.test(text)) return undefined;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  return title?.replace(/\s+/g, " ").trim().slice(0, 80) ?? "";
}

function network(message: string): Failure {
  return { error: new ProviderError("network", message), retryable: true };
}

function server(message: string, status: number | undefined): Failure {
  return { error: new ProviderError("server", message, status), retryable: true };
}

function badResponse(message: string, retryable: boolean): Failure {
  return { error: new ProviderError("bad_response", message), retryable };
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1_048_576) * 10) / 10} MB`;
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
