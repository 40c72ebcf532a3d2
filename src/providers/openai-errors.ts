import type { APIError } from "openai";
import { ProviderError } from "../core/agent/provider.ts";
import type { Failure, FailureContext } from "./failure.ts";
import { openAISdkLoaded } from "./openai-sdk.ts";
import {
  type AttemptSeen,
  badResponse,
  classifyThrown,
  displayURL as displayURLNamed,
  type VendorFailures,
} from "./sdk-failure.ts";

export type { AttemptSeen } from "./sdk-failure.ts";

const CHECK_BASE_URL =
  "Check that OPENAI_BASE_URL points to an OpenAI-compatible API (it usually ends in /v1).";

/**
 * Maps whatever an attempt threw to a {@link Failure}, with OPENAI_* settings
 * named (see sdk-failure.ts); OpenAI answers 429 for an exhausted account
 * too, which waiting will not fix, and a proxy's web page is named as one.
 */
export function classifyFailure(
  thrown: unknown,
  context: FailureContext,
  seen: AttemptSeen,
): Failure {
  return classifyThrown(openAISdkLoaded(), thrown, context, seen, OPENAI_FAILURES);
}

const OPENAI_FAILURES: VendorFailures<APIError> = {
  baseURLSetting: "OPENAI_BASE_URL",
  apiKeySetting: "OPENAI_API_KEY",
  checkBaseURL: CHECK_BASE_URL,
  finishSignal: "saying it was done",
  providerMessage,
  special(error) {
    if (error.status !== 429) return undefined;
    if (error.code !== "insufficient_quota" && error.type !== "insufficient_quota")
      return undefined;
    return {
      error: new ProviderError(
        "rate_limit",
        "The model provider's account has run out of quota or credits. Add credits or raise the limit, then try again.",
        error.status,
      ),
      retryable: false,
    };
  },
  refused(status, said) {
    const page = webPageTitle(said);
    return page === undefined
      ? `The model provider refused the request (HTTP ${status}): ${said}`
      : `The model provider refused the request (HTTP ${status}) with a web page${page ? ` titled "${page}"` : ""} instead of an API error. ${CHECK_BASE_URL}`;
  },
  endedEarly,
};

/** A stream that ended without a finish reason, when what came before it says why. */
function endedEarly(context: FailureContext, seen: AttemptSeen): Failure | undefined {
  const { where } = context;
  const { events, unreadable } = seen.progress;
  const type = seen.contentType?.split(";")[0]?.trim().toLowerCase();
  if (events === 0 && type && type !== "text/event-stream") {
    const what = type === "text/html" ? "a web page (text/html)" : `"${type}"`;
    return badResponse(
      `The model provider at ${where} answered with ${what} instead of a stream of chat completion chunks. ${CHECK_BASE_URL}`,
      false,
    );
  }
  if (unreadable > 0) {
    return badResponse(
      `The model provider at ${where} sent a reply I could not read (${unreadable} of its ${events} stream events were not chat completion chunks). ${CHECK_BASE_URL}`,
      true,
    );
  }
  return undefined;
}

/** The provider's own words: the error body's `message`, else the raw body the SDK put in its message. */
function providerMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === "string"
    ? body.message
    : error.message.replace(/^\d{3} /, "").replace(/^status code \(no body\)$/, "no details");
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

/** The base URL without credentials, query or fragment, for messages and logs. */
export function displayURL(baseURL: string): string {
  return displayURLNamed(baseURL, "OPENAI_BASE_URL");
}
