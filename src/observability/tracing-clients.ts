import { createRequire } from "node:module";
import type { TracerProvider } from "@opentelemetry/api";
import { IORedisInstrumentation } from "@opentelemetry/instrumentation-ioredis";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { defaultDbStatementSerializer } from "@opentelemetry/redis-common";
import { capturesContent } from "./tracing.ts";
import { redactedUrlAttributes, redisStatement } from "./tracing-redaction.ts";

/** The client instrumentations of a registered SDK; `disable` unhooks them. */
export interface ClientTracing {
  disable(): void;
}

/**
 * Redis commands (ioredis) and HTTP requests (undici and the global fetch:
 * model requests, Discord's REST calls, attachment downloads, web tools) as
 * client spans under whatever Switchyard span is active. Called only when an
 * SDK is registered, so a process without traces loads none of this.
 *
 * Only inside a span: BullMQ's polling and background reconnects would
 * otherwise make a trace per command. What the spans may say is in
 * tracing-redaction.ts: no Redis arguments, no headers, no tokens in URLs.
 *
 * The project runs as ESM, where the instrumentation's require hook never
 * sees `import { Redis } from "ioredis"` (and by now ioredis is loaded
 * anyway): so the hook is installed, then ioredis is required once through
 * it, which patches the one `Redis.prototype` that every import shares.
 * Undici needs no patching; it reports through `diagnostics_channel`.
 */
export function instrumentClients(provider: TracerProvider): ClientTracing {
  const redis = new IORedisInstrumentation({
    requireParentSpan: true,
    dbStatementSerializer: (command, args) =>
      capturesContent() ? defaultDbStatementSerializer(command, args) : redisStatement(command),
  });
  const http = new UndiciInstrumentation({
    requireParentforSpans: true,
    // The span starts with these in place of the URL as sent: nothing with a token is ever set.
    startSpanHook: (request) => urlAttributesOf(request.path, request.origin),
  });
  for (const instrumentation of [redis, http]) {
    instrumentation.setTracerProvider(provider);
    instrumentation.enable();
  }
  createRequire(import.meta.url)("ioredis");
  return {
    disable() {
      redis.disable();
      http.disable();
    },
  };
}

function urlAttributesOf(path: string, origin: string) {
  try {
    return redactedUrlAttributes(new URL(path, origin), capturesContent());
  } catch {
    // The instrumentation makes no span for a URL it cannot parse either.
    return {};
  }
}
