import type { RequestOptions } from "node:http";
import { createRequire } from "node:module";
import type { TracerProvider } from "@opentelemetry/api";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
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
 * model requests, Discord's REST calls, Slack's Web API, Telegram's Bot API
 * (platforms/telegram/bot-api-fetch.ts), attachment downloads, web tools;
 * `node:http`/`node:https`: whatever still calls through them, such as a
 * grammY client left on its default node-fetch) as client spans under
 * whatever Switchyard span is active. Called only when an SDK is
 * registered, so a process without traces patches and subscribes to
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
 * The same holds for `node:http` and `node:https`: by the time an SDK is
 * registered they are loaded (node-fetch required them on import), so the
 * instrumentation's hook never fires. Its patch goes by hand onto the core modules' exports objects,
 * the ones `require("node:http")` and a default `import http` share, which
 * node-fetch reads at each request. Undici needs no patching; it reports
 * through `diagnostics_channel`, and fetch never goes through `node:http`,
 * so no request gets two spans.
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
  const core = new HttpInstrumentation({
    enabled: false,
    requireParentforOutgoingSpans: true,
    // Not `ignoreIncomingRequestHook`: an ignored request runs with tracing
    // suppressed, which would silence the ingress spans of Bolt's and the
    // webhook's servers. The ingress spans exist; /metrics is not traced.
    disableIncomingRequestInstrumentation: true,
    // Replaces the URL as sent (the span is started with these last); headers are never read.
    startOutgoingSpanHook: (request) => urlAttributesOf(request.path ?? "/", originOf(request)),
  });
  redis.setTracerProvider(provider);
  const unpatchRedis = patchIoredis(redis);
  http.setTracerProvider(provider);
  http.enable();
  core.setTracerProvider(provider);
  const unpatchCore = patchCoreHttp(core);
  return {
    disable() {
      unpatchRedis();
      http.disable();
      unpatchCore();
    },
  };
}

/** Applies the HTTP instrumentation's patch to `node:http` and `node:https`; returns how to take it off. */
function patchCoreHttp(core: HttpInstrumentation): () => void {
  const require = createRequire(import.meta.url);
  const modules = core.getModuleDefinitions().map((d) => [d, require(`node:${d.name}`)] as const);
  for (const [definition, exports] of modules) definition.patch?.(exports);
  return () => {
    for (const [definition, exports] of modules) definition.unpatch?.(exports);
  };
}

/** Where a `node:http` request goes, as the instrumentation reads it (`https` sets its protocol). */
function originOf(request: RequestOptions): string {
  const host = request.hostname ?? request.host ?? "localhost";
  const port = request.port ? `:${request.port}` : "";
  return `${request.protocol ?? "http:"}//${host.includes(":") ? host : `${host}${port}`}`;
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
