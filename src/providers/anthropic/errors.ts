import type * as AnthropicSDK from "@anthropic-ai/sdk";
import { ProviderError } from "../../core/agent/provider.ts";
import type { Failure, FailureContext } from "../failure.ts";
import {
  type AttemptSeen,
  classifyThrown,
  displayURL,
  type VendorFailures,
} from "../sdk-failure.ts";

/**
 * Anthropic's failures onto {@link ProviderError}'s kinds. The wording is the
 * OpenAI-compatible provider's (sdk-failure.ts), with Anthropic's settings
 * named; 529 `overloaded_error` (as a status, or as an `error` event before
 * any text) is a `server` failure worth retrying, with status 529 so a
 * fallback can tell it apart.
 */

/** Anthropic's "overloaded" status, which no other API sends. */
export const OVERLOADED_STATUS = 529;

const CHECK_BASE_URL =
  "Check that ANTHROPIC_BASE_URL points to the Anthropic API (e.g. https://api.anthropic.com, without /v1).";

export function classifyFailure(
  sdk: typeof AnthropicSDK,
  thrown: unknown,
  context: FailureContext,
  seen: AttemptSeen,
): Failure {
  return classifyThrown(sdk, thrown, context, seen, ANTHROPIC_FAILURES);
}

const ANTHROPIC_FAILURES: VendorFailures<AnthropicSDK.APIError> = {
  baseURLSetting: "ANTHROPIC_BASE_URL",
  apiKeySetting: "ANTHROPIC_API_KEY",
  checkBaseURL: CHECK_BASE_URL,
  finishSignal: "a stop reason",
  providerMessage,
  special(error) {
    // An `error` event inside a stream that had started: overloaded is the usual one.
    if (error.status === undefined && error.type === "overloaded_error") return overloaded();
    if (error.status === OVERLOADED_STATUS) return { ...overloaded(), headers: error.headers };
    return undefined;
  },
};

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
  return typeof body?.error?.message === "string"
    ? body.error.message
    : error.message.replace(/^\d{3} /, "");
}

/** The base URL without credentials, query or fragment, for messages and logs. */
export function displayAnthropicURL(baseURL: string): string {
  return displayURL(baseURL, "ANTHROPIC_BASE_URL");
}
