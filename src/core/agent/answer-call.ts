import { runToolSearch } from "../loading/discovery.ts";
import { TOOL_SEARCH_ID } from "../loading/discovery-tool.ts";
import type { TurnContract } from "../loading/freeze.ts";
import { parseToolArguments } from "../tools/arguments.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { AnyTool } from "../tools/tool.ts";
import type { ToolFileRecord } from "./checkpoint.ts";
import type { ToolCall } from "./messages.ts";
import { tombstoneFor } from "./tombstone.ts";

/** How one tool call ended, for the result text and for metrics. */
export type ToolOutcome = "ok" | "error" | "timeout" | "invalid_args" | "tombstone" | "discovery";

export interface ToolRun {
  readonly output: string;
  readonly outcome: Exclude<ToolOutcome, "tombstone" | "discovery">;
  /** Files the tool made, already kept by the shell (the output says they will be sent). */
  readonly files?: readonly ToolFileRecord[];
}

/** What answering one call gives the step: the result text, what discovery loads, the files kept. */
export interface CallAnswer {
  readonly output: string;
  readonly load: readonly string[];
  readonly files?: readonly ToolFileRecord[];
}

/** What answering a call needs from the turn: the live tools, how to run one, and who hears how it ended. */
export interface CallRunner {
  readonly registry: ToolRegistry;
  readonly runTool: (tool: AnyTool, args: unknown, call: ToolCall) => Promise<ToolRun>;
  readonly onToolCall?: (name: string, outcome: ToolOutcome, ms: number) => void;
}

/**
 * The result text of one tool call: a tombstone when it cannot run, the
 * problem with its arguments, discovery's answer (and what it loads), or
 * the tool's own output.
 */
export async function answerCall(
  input: CallRunner,
  contract: TurnContract,
  call: ToolCall,
  now: () => number,
): Promise<CallAnswer> {
  const started = now();
  const name = call.function.name;
  const report = (outcome: ToolOutcome) => input.onToolCall?.(name, outcome, now() - started);

  const tombstone = tombstoneFor(contract, name);
  if (tombstone) {
    report("tombstone");
    return { output: tombstone.text, load: [] };
  }
  const reading = parseToolArguments(name, call.function.arguments);
  if (!reading.ok) {
    report("invalid_args");
    return { output: reading.problem, load: [] };
  }
  const args = reading.args;
  if (name === TOOL_SEARCH_ID) {
    const outcome = runToolSearch(contract, input.registry, args);
    report("discovery");
    return { output: outcome.text, load: outcome.load };
  }
  const tool = input.registry.get(name);
  if (!tool) {
    // Callable but gone from the registry (an MCP server dropped it mid-turn).
    report("error");
    return { output: `Tool "${name}" is no longer available on this host.`, load: [] };
  }
  const run = await input.runTool(tool, args, call);
  report(run.outcome);
  return { output: run.output, load: [], ...(run.files?.length ? { files: run.files } : {}) };
}

/** Whether any of these calls would run a tool that has effects outside the conversation. */
export function hasEffects(
  registry: ToolRegistry,
  contract: TurnContract,
  calls: readonly ToolCall[],
): boolean {
  return calls.some(
    (call) =>
      contract.callable.has(call.function.name) &&
      registry.get(call.function.name)?.effects === true,
  );
}
