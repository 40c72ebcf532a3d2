import { context, propagation, trace } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-node";
import { instrumentClients } from "../../src/observability/tracing-clients.ts";

/**
 * A tracing SDK registered for one test file as `switchyard start` registers
 * one (with the Redis and HTTP client instrumentations), keeping every
 * finished span in memory.
 */
export interface TestTracing {
  readonly exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  stop(): Promise<void>;
}

export function startTestTracing(): TestTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  const clients = instrumentClients(provider);
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    async stop() {
      clients.disable();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** A span's parent span id, across the SDK's 1.x and 2.x field names. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** The trace as an indented tree of span names, children in start order. */
export function traceTree(spans: readonly ReadableSpan[]): string {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const children = (parent: string | undefined) =>
    spans
      .filter((s) => (parent === undefined ? !ids.has(parentOf(s) ?? "") : parentOf(s) === parent))
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  const lines: string[] = [];
  const walk = (span: ReadableSpan, depth: number) => {
    lines.push(`${"  ".repeat(depth)}${span.name}`);
    for (const child of children(span.spanContext().spanId)) walk(child, depth + 1);
  };
  for (const root of children(undefined)) walk(root, 0);
  return lines.join("\n");
}

/**
 * Everything the spans would tell a trace backend, as one string to search:
 * names, every attribute, events (exceptions), status messages and links.
 */
export function everythingSaid(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((span) => ({
      name: span.name,
      attributes: span.attributes,
      status: span.status.message ?? "",
      events: span.events.map((event) => [event.name, event.attributes ?? {}]),
      links: span.links.map((link) => link.attributes ?? {}),
    })),
  );
}

/** The client spans the Redis instrumentation made. */
export function redisSpans(spans: readonly ReadableSpan[]): ReadableSpan[] {
  return spans.filter((span) => span.attributes["db.system.name"] === "redis");
}

/** The client spans the HTTP instrumentations (undici, node:http) made. */
export function httpSpans(spans: readonly ReadableSpan[]): ReadableSpan[] {
  return spans.filter((span) => span.attributes["http.request.method"] !== undefined);
}

/** Switchyard's own spans, without the client spans under them. */
export function switchyardSpans(spans: readonly ReadableSpan[]): ReadableSpan[] {
  return spans.filter((span) => span.name.startsWith("switchyard."));
}
