/**
 * What traces cost: Switchyard turns with tracing off (the API's no-op
 * tracer, as a process without `telemetry:` runs) against tracing on (the
 * SDK registered as `switchyard start` registers it, with the Redis and HTTP
 * client instrumentations, a batch processor and an exporter that drops
 * what it is handed, so the figure is ours and not a collector's), and on
 * without the client instrumentations, to tell their share. Warm-up rounds
 * of each first, then interleaved rounds, order rotated.
 */
import { randomUUID } from "node:crypto";
import { context, propagation, trace } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-node";
import { instrumentClients } from "../src/observability/tracing-clients.ts";
import { cleanup, type RunShape, type SwitchyardRun, switchyardRun } from "./pipeline-runs.ts";

const SHAPE: RunShape = {
  conversations: Number(process.env.BENCH_TRACING_CONVERSATIONS ?? 1_000),
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 16),
  tools: 10,
  history: 0,
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP_ROUNDS = 1;

/** Counts the spans it is handed and keeps none. */
class CountingExporter implements SpanExporter {
  spans = 0;
  export(spans: ReadableSpan[], done: (result: { code: ExportResultCode }) => void): void {
    this.spans += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  }
  async shutdown(): Promise<void> {}
}

/**
 * One run with the SDK registered for it, with or without the client
 * instrumentations; returns the run and the spans it made.
 */
async function tracedRun(
  prefix: string,
  withClients: boolean,
): Promise<{ run: SwitchyardRun; spans: number }> {
  const exporter = new CountingExporter();
  const provider = new NodeTracerProvider({
    // Large enough that no span of a run is dropped: every span is paid for.
    spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 200_000 })],
  });
  provider.register();
  const clients = withClients ? instrumentClients(provider) : undefined;
  try {
    const run = await switchyardRun(prefix, SHAPE);
    await provider.forceFlush();
    return { run, spans: exporter.spans };
  } finally {
    clients?.disable();
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  }
}

function traced(runs: readonly { run: SwitchyardRun; spans: number }[]) {
  return {
    perSecond: median(runs.map((r) => r.run.perSecond)),
    cpuMicros: median(runs.map((r) => r.run.cpuMicros)),
    spansPerTurn: median(runs.map((r) => r.spans / SHAPE.conversations)),
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

/** Prints the figures; traces have no target (they are off unless configured), so it always holds. */
export async function benchTracing(print: (line: string) => void): Promise<boolean> {
  const prefixes: string[] = [];
  const prefix = (side: string) => {
    const p = `sybench-trace-${side}-${randomUUID().slice(0, 8)}`;
    prefixes.push(p);
    return p;
  };
  const off: SwitchyardRun[] = [];
  const on: { run: SwitchyardRun; spans: number }[] = [];
  const ours: { run: SwitchyardRun; spans: number }[] = [];
  const sides = ["off", "on", "ours"] as const;
  try {
    for (let r = 0; r < WARMUP_ROUNDS + ROUNDS; r++) {
      const measured = r >= WARMUP_ROUNDS;
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(k + r) % sides.length] as (typeof sides)[number];
        if (side === "off") {
          const run = await switchyardRun(prefix("off"), SHAPE);
          if (measured) off.push(run);
        } else {
          const run = await tracedRun(prefix(side), side === "on");
          if (measured) (side === "on" ? on : ours).push(run);
        }
      }
    }
  } finally {
    for (const p of prefixes) await cleanup(p);
  }
  const figures = {
    off: {
      perSecond: median(off.map((r) => r.perSecond)),
      cpuMicros: median(off.map((r) => r.cpuMicros)),
    },
    on: traced(on),
    ours: traced(ours),
  };
  const rateRatio = figures.on.perSecond / figures.off.perSecond;
  const cpuRatio = figures.on.cpuMicros / figures.off.cpuMicros;
  print("");
  print(
    `Tracing on vs off: ${SHAPE.conversations} conversations, one tool call per turn, instant model, concurrency ${SHAPE.concurrency}`,
  );
  print(
    `${WARMUP_ROUNDS} warm-up round of each discarded, then ${ROUNDS} rounds each, order rotated; medians`,
  );
  print(
    `tracing off   ${figures.off.perSecond.toFixed(0)} turns/s   ${figures.off.cpuMicros.toFixed(0)} µs CPU per turn`,
  );
  print(
    `tracing on    ${figures.on.perSecond.toFixed(0)} turns/s   ${figures.on.cpuMicros.toFixed(0)} µs CPU per turn   ${figures.on.spansPerTurn.toFixed(1)} spans per turn (SDK, Redis and HTTP instrumentations, exporter that drops)`,
  );
  print(
    `  our spans   ${figures.ours.perSecond.toFixed(0)} turns/s   ${figures.ours.cpuMicros.toFixed(0)} µs CPU per turn   ${figures.ours.spansPerTurn.toFixed(1)} spans per turn (the SDK without the client instrumentations)`,
  );
  print(
    `on / off      ${(rateRatio * 100).toFixed(1)}% of the turn rate, ${cpuRatio.toFixed(2)}x the CPU per turn (${(figures.ours.cpuMicros / figures.off.cpuMicros).toFixed(2)}x without the client spans)`,
  );
  return true;
}
