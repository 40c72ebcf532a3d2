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
 * SDK is registered, so a process without traces patches and subscribes to
 * nothing: its Redis commands and requests run as if this did not exist.
 *
 * Only inside a span: BullMQ's polling and background reconnects would
 * otherwise make a trace per command. What the spans may say is in
 * tracing-redaction.ts: no Redis arguments, no headers, no tokens in URLs.
 *
 * The project runs as ESM, where the instrumentation's require hook never
 * sees `import { Redis } from "ioredis"` (and by now ioredis is loaded
 * anyway); the hook also patches a module once per process, so a second SDK
 * (a test file, the bench's rounds) would get nothing. So the Redis
 * instrumentation is never enabled: its patch is applied by hand to the one
 * `Redis.prototype` that every import shares, and taken off by `disable`.
 * Undici needs no patching; it reports through `diagnostics_channel`.
 */
export function instrumentClients(provider: TracerProvider): ClientTracing {
  const redis = new IORedisInstrumentation({
    enabled: false,
    requireParentSpan: true,
    dbStatementSerializer: (command, args) =>
      capturesContent() ? defaultDbStatementSerializer(command, args) : redisStatement(command),
  });
  const http = new UndiciInstrumentation({
    requireParentforSpans: true,
    // The span starts with these in place of the URL as sent: nothing with a token is ever set.
    startSpanHook: (request) => urlAttributesOf(request.path, request.origin),
  });
  redis.setTracerProvider(provider);
  const unpatch = patchIoredis(redis);
  http.setTracerProvider(provider);
  http.enable();
  return {
    disable() {
      unpatch();
      http.disable();
    },
  };
}

/** Applies the Redis instrumentation's patch to the loaded ioredis; returns how to take it off. */
function patchIoredis(redis: IORedisInstrumentation): () => void {
  const require = createRequire(import.meta.url);
  const ioredis: unknown = require("ioredis");
  const { version } = require("ioredis/package.json") as { version: string };
  const definitions = redis.getModuleDefinitions().filter((d) => d.name === "ioredis");
  for (const definition of definitions) definition.patch?.(ioredis, version);
  return () => {
    for (const definition of definitions) definition.unpatch?.(ioredis, version);
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
