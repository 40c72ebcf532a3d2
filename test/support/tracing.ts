import { context, propagation, trace } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-node";

/** A tracing SDK registered for one test file, keeping every finished span in memory. */
export interface TestTracing {
  readonly exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  stop(): Promise<void>;
}

export function startTestTracing(): TestTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    async stop() {
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
