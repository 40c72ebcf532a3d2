import type { ToolRun } from "../core/agent/loop.ts";
import type { ToolCall } from "../core/agent/messages.ts";
import { checkArguments } from "../core/tools/arguments.ts";
import type { AnyTool, ToolContext } from "../core/tools/tool.ts";

export interface ToolRunnerOptions {
  /** How long one call may take before it is answered with a timeout. */
  readonly timeoutMs: number;
  /** The largest result handed back to the model; the rest is cut with a note. */
  readonly maxOutputChars?: number;
  /** Aborted by `/stop`: the tool's signal aborts and the call is answered at once. */
  readonly stop?: AbortSignal;
}

/**
 * Runs one tool call: checks the arguments against the tool's schema
 * (unknown keys included, see {@link checkArguments}),
 * enforces the timeout (the tool's signal aborts, and the call is answered
 * either way), and turns every failure into a result the model can read
 * (rule 7: the loop never crashes on a tool).
 */
export async function runTool(
  tool: AnyTool,
  args: unknown,
  _call: ToolCall,
  context: Omit<ToolContext, "signal">,
  options: ToolRunnerOptions,
): Promise<ToolRun> {
  const parsed = checkArguments(tool, args);
  if (!parsed.ok) return { outcome: "invalid_args", output: parsed.problem };
  const timeoutMs = tool.timeoutMs ?? options.timeoutMs;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ToolRun>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      resolve({
        outcome: "timeout",
        output: `${tool.id} did not answer within ${duration(timeoutMs)} and was stopped. Try again later or do without it.`,
      });
    }, timeoutMs);
  });
  const stopped = new Promise<ToolRun>((resolve) => {
    const stop = options.stop;
    if (!stop) return;
    const onStop = () => {
      controller.abort(new Error("stopped"));
      resolve({
        outcome: "error",
        output: `${tool.id} was stopped before it finished: the person asked to stop (/stop).`,
      });
    };
    if (stop.aborted) onStop();
    else stop.addEventListener("abort", onStop, { once: true });
  });
  const execution = (async (): Promise<ToolRun> => {
    try {
      const output = await tool.execute(parsed.args, { ...context, signal: controller.signal });
      return { outcome: "ok", output: cap(String(output), options.maxOutputChars ?? 50_000) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { outcome: "error", output: `${tool.id} failed: ${message}` };
    }
  })();
  try {
    return await Promise.race([execution, timeout, stopped]);
  } finally {
    clearTimeout(timer);
  }
}

function duration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1_000)} s`;
}

function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters cut]`;
}
