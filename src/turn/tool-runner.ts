import type { ToolRun } from "../core/agent/loop.ts";
import type { ToolCall } from "../core/agent/messages.ts";
import { withFileNotes } from "../core/attachments/outgoing.ts";
import { addressOnly } from "../core/conversation.ts";
import { checkArguments } from "../core/tools/arguments.ts";
import type { AnyTool, ToolContext, ToolOutput } from "../core/tools/tool.ts";
import { isToolResult, toolResult } from "../core/tools/tool-result.ts";
import type { FileTally, ToolFileStore } from "../ports/tool-files.ts";

export interface ToolRunnerOptions {
  /** How long one call may take before it is answered with a timeout. */
  readonly timeoutMs: number;
  /** The largest result handed back to the model; the rest is cut with a note. */
  readonly maxOutputChars?: number;
  /** Aborted by `/stop`: the tool's signal aborts and the call is answered at once. */
  readonly stop?: AbortSignal;
  /**
   * Where files a tool returns are kept for the answer, and the turn's
   * tally of kept bytes; unset: a result's files are refused with a note.
   */
  readonly files?: { readonly store: ToolFileStore; readonly tally: FileTally };
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
  call: ToolCall,
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
    let output: ToolOutput;
    try {
      output = await tool.execute(parsed.args, { ...context, signal: controller.signal });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { outcome: "error", output: `${tool.id} failed: ${message}` };
    }
    // Outside the catch: Redis failing to keep a file is not the tool's failure; the turn is retried.
    // A hand-made result with a file toolResult would refuse is the tool's error, not the turn's.
    if (isToolResult(output)) {
      try {
        output = toolResult(output.text, output.files);
      } catch (error) {
        return {
          outcome: "error",
          output: `${tool.id} returned a file that cannot be sent: ${(error as Error).message}`,
        };
      }
    }
    return okRun(output, { ...context, callKey: context.callKey ?? call.id }, options);
  })();
  try {
    return await Promise.race([execution, timeout, stopped]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A finished call's result: its text, capped, and any files it returned
 * kept for the answer (their bytes stored, never in the text), with a line
 * per file telling the model what the person will get.
 */
async function okRun(
  output: ToolOutput,
  context: Omit<ToolContext, "signal">,
  options: ToolRunnerOptions,
): Promise<ToolRun> {
  const max = options.maxOutputChars ?? 50_000;
  if (!isToolResult(output)) return { outcome: "ok", output: cap(String(output), max) };
  const text = cap(output.text, max);
  if (output.files.length === 0) return { outcome: "ok", output: text };
  if (!options.files) {
    const names = output.files.map((f) => f.name).join(", ");
    return {
      outcome: "ok",
      output: `${text}\n\n[files not sent: ${names}: this bot keeps no files for answers]`,
    };
  }
  const { store, tally } = options.files;
  const address = addressOnly(context);
  const kept = await store.keep(address, context.callKey as string, output.files, tally);
  const files = kept.flatMap((k) => (k.record ? [k.record] : []));
  return {
    outcome: "ok",
    output: withFileNotes(
      text,
      kept.map((k) => k.verdict),
    ),
    ...(files.length > 0 ? { files } : {}),
  };
}

function duration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1_000)} s`;
}

function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters cut]`;
}
