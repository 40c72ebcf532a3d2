import { context, trace } from "@opentelemetry/api";
import type { ToolOutcome, ToolRun } from "../core/agent/loop.ts";
import { capturesContent, inSpan, SpanKind, tracer } from "./tracing.ts";

/** The longest argument or result text a span keeps when content capture is on. */
const CONTENT_LIMIT = 4_096;

/**
 * One `switchyard.tool.call` span per tool call of a turn. A call that runs a
 * tool gets its span around the run (what the tool does nests under it); a
 * call answered without running (a tombstone, bad arguments, discovery) gets
 * its span from the loop's report, with the duration the loop measured.
 * Spans carry the tool id, outcome and duration; arguments and results only
 * with `telemetry.capture_content: true`.
 */
export class ToolSpans {
  /** Calls whose span the run made and whose report is still to come, by tool id. */
  readonly #ran = new Map<string, number>();

  /** Runs a tool inside its span. */
  run(toolId: string, args: unknown, execute: () => Promise<ToolRun>): Promise<ToolRun> {
    return inSpan(
      "switchyard.tool.call",
      { kind: SpanKind.INTERNAL, attributes: { "gen_ai.tool.name": toolId } },
      async (span) => {
        if (capturesContent()) span.setAttribute("switchyard.tool.arguments", clip(args));
        const run = await execute();
        span.setAttribute("switchyard.tool.outcome", run.outcome);
        if (capturesContent()) span.setAttribute("switchyard.tool.result", clip(run.output));
        this.#ran.set(toolId, (this.#ran.get(toolId) ?? 0) + 1);
        return run;
      },
    );
  }

  /** The loop's report of a call; makes the span of a call that did not run. */
  reported(toolId: string, outcome: ToolOutcome, ms: number): void {
    const ran = this.#ran.get(toolId) ?? 0;
    if (ran > 0) {
      this.#ran.set(toolId, ran - 1);
      return;
    }
    if (!trace.getActiveSpan()?.isRecording()) return;
    const end = Date.now();
    tracer()
      .startSpan(
        "switchyard.tool.call",
        {
          kind: SpanKind.INTERNAL,
          startTime: end - ms,
          attributes: { "gen_ai.tool.name": toolId, "switchyard.tool.outcome": outcome },
        },
        context.active(),
      )
      .end(end);
  }
}

function clip(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return text.length > CONTENT_LIMIT ? `${text.slice(0, CONTENT_LIMIT)}…` : text;
}
