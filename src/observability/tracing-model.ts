import { type Span, trace } from "@opentelemetry/api";
import type { Provider, ProviderRequest, ProviderResponse } from "../core/agent/provider.ts";
import { inSpan, SpanKind } from "./tracing.ts";

/** When each model request span started, for its time to first token. */
const started = new WeakMap<Span, number>();

/**
 * The provider with one `switchyard.model.request` span per request: the
 * model (the provider notes it), prompt, cached and completion tokens, the
 * finish reason, retries (events) and the time to the first streamed event.
 * Never the prompt or the reply.
 */
export function tracedProvider(provider: Provider): Provider {
  return {
    complete: (request: ProviderRequest): Promise<ProviderResponse> =>
      inSpan("switchyard.model.request", { kind: SpanKind.CLIENT }, async (span) => {
        started.set(span, performance.now());
        span.setAttribute("switchyard.model.messages", request.messages.length);
        const response = await provider.complete(request);
        span.setAttributes({
          "gen_ai.usage.input_tokens": response.usage.promptTokens,
          "gen_ai.usage.cache_read.input_tokens": response.usage.cachedTokens,
          "gen_ai.usage.output_tokens": response.usage.completionTokens,
          "gen_ai.response.finish_reasons": [response.finishReason],
          "switchyard.model.tool_calls": response.toolCalls.length,
        });
        return response;
      }),
  };
}

/** Called by a provider when the request's model is known. */
export function noteModel(model: string): void {
  trace.getActiveSpan()?.setAttribute("gen_ai.request.model", model);
}

/** Called by a provider's stream reader on each event; the first sets the time to first token. */
export function noteStreamEvent(): void {
  const span = trace.getActiveSpan();
  const start = span && started.get(span);
  if (!span || start === undefined) return;
  started.delete(span);
  span.setAttribute("switchyard.model.time_to_first_token_ms", performance.now() - start);
}

/** Called by a provider before it retries a failed request. */
export function noteRetry(attempt: number, reason: string, delayMs: number): void {
  const span = trace.getActiveSpan();
  span?.addEvent("switchyard.model.retry", {
    "switchyard.retry.attempt": attempt,
    "switchyard.retry.reason": reason,
    "switchyard.retry.delay_ms": delayMs,
  });
  span?.setAttribute("switchyard.model.retries", attempt - 1);
}
