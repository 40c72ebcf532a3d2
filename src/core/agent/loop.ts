import { runToolSearch } from "../loading/discovery.ts";
import { TOOL_SEARCH_ID } from "../loading/discovery-tool.ts";
import { appendLoaded, type TurnContract } from "../loading/freeze.ts";
import { parseToolArguments } from "../tools/arguments.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { AnyTool } from "../tools/tool.ts";
import {
  type AssistantMessage,
  addUsage,
  type ChatMessage,
  type ToolCall,
  type Usage,
  ZERO_USAGE,
} from "./messages.ts";
import { type Provider, ProviderError } from "./provider.ts";
import { tombstoneFor } from "./tombstone.ts";

/** How one tool call ended, for the result text and for metrics. */
export type ToolOutcome = "ok" | "error" | "timeout" | "invalid_args" | "tombstone" | "discovery";

export interface ToolRun {
  readonly output: string;
  readonly outcome: Exclude<ToolOutcome, "tombstone" | "discovery">;
}

/** What the loop stores after each step: the step's messages and what discovery loaded so far. */
export interface StepCommit {
  readonly step: number;
  readonly messages: readonly ChatMessage[];
  readonly loaded: readonly string[];
  readonly contractHash: string;
}

export interface TurnInput {
  readonly registry: ToolRegistry;
  /** The contract frozen at the turn boundary (with any loads of a resumed turn appended). */
  readonly contract: TurnContract;
  readonly system: string;
  /** The conversation before this turn. */
  readonly history: readonly ChatMessage[];
  /** This turn's messages already stored: the person's messages, then completed steps. */
  readonly turn: readonly ChatMessage[];
  /** Steps already completed (0 for a new turn). */
  readonly step: number;
  /** Tools discovery loaded earlier in this turn. */
  readonly loaded: readonly string[];
  readonly provider: Provider;
  readonly cacheKey: string;
  /** The model this conversation uses; unset: the provider's own. */
  readonly model?: string;
  readonly maxSteps: number;
  /** Runs a callable tool: validates its arguments, enforces its timeout, turns errors into text. */
  readonly runTool: (tool: AnyTool, args: unknown, call: ToolCall) => Promise<ToolRun>;
  /** Stores a step; must be atomic (messages and checkpoint together). */
  readonly commit: (step: StepCommit) => Promise<void>;
  /**
   * Stores the model's tool calls of a step before tools with effects run
   * (see `effects` on a tool); a resumed turn hands them back as `calling`.
   */
  readonly recordCalls?: (step: number, assistant: AssistantMessage) => Promise<void>;
  /** Calls a crashed run of this turn stored for its next step: they run again as they were. */
  readonly calling?: AssistantMessage;
  /**
   * Called at each step boundary (a step's tool results are stored, the next
   * model request not yet sent): the messages people sent meanwhile, already
   * stored as this turn's (the `steer` queue mode), to append in order. Only
   * messages are added, never tools, so the next request shares the prefix.
   */
  readonly steer?: () => Promise<readonly ChatMessage[]>;
  /**
   * Aborted when the turn must end early (`/stop`, or a new message in the
   * `interrupt` queue mode): the model request in flight is cancelled, a
   * step whose tools run still gets its results stored, and the turn ends at
   * that boundary with `stop: "interrupted"`.
   */
  readonly interrupt?: AbortSignal;
  readonly onText?: (textSoFar: string) => void;
  readonly onToolCall?: (name: string, outcome: ToolOutcome, ms: number) => void;
  /** The clock, for model and tool timings: the core reads no clock it is not handed. */
  readonly now: () => number;
  readonly signal?: AbortSignal;
}

export interface TurnResult {
  /** What the person is told. */
  readonly answer: string;
  readonly stop: "answer" | "step_limit" | "provider_error" | "interrupted";
  readonly steps: number;
  readonly usage: Usage;
  /** Provider time in ms, so the shell can tell framework overhead from model time. */
  readonly modelMs: number;
  readonly toolMs: number;
  readonly contract: TurnContract;
  readonly loaded: readonly string[];
  readonly error?: ProviderError;
}

/**
 * Runs one turn: ask the model, run the tools it calls (in parallel, each
 * answered even when it cannot run), and repeat until it answers or the step
 * limit is reached. Every step is committed before the next begins, so a turn
 * resumed from its checkpoint continues exactly where it stopped.
 */
export async function runTurn(input: TurnInput): Promise<TurnResult> {
  const now = input.now;
  const turn = [...input.turn];
  let contract = input.contract;
  let loaded = [...input.loaded];
  let usage = ZERO_USAGE;
  let modelMs = 0;
  let toolMs = 0;
  let step = input.step;
  const result = (answer: string, stop: TurnResult["stop"], error?: ProviderError): TurnResult => ({
    answer,
    stop,
    steps: step,
    usage,
    modelMs,
    toolMs,
    contract,
    loaded,
    ...(error ? { error } : {}),
  });

  const last = turn.at(-1);
  if (last?.role === "assistant" && !last.tool_calls?.length) {
    // The turn was answered before a crash; only delivery remains.
    return result(last.content ?? "", "answer");
  }

  let recorded = input.calling?.tool_calls?.length ? input.calling : undefined;
  // Calls stored before a crash still run (their effects may be half done); after them, the turn ends.
  const interrupted = () => input.interrupt?.aborted === true && !recorded;
  const signal = anySignal(input.signal, input.interrupt);
  while (step < input.maxSteps) {
    if (interrupted()) return result("", "interrupted");
    let response: { content: string | null; toolCalls: readonly ToolCall[] };
    if (recorded) {
      // A crashed run stored these calls before running them: run the same ones, not new ones.
      response = { content: recorded.content ?? null, toolCalls: recorded.tool_calls ?? [] };
    } else {
      const started = now();
      try {
        const completion = await input.provider.complete({
          system: input.system,
          tools: contract.tools,
          messages: [...input.history, ...turn],
          cacheKey: input.cacheKey,
          ...(input.model !== undefined ? { model: input.model } : {}),
          ...(signal ? { signal } : {}),
          ...(input.onText ? { onText: input.onText } : {}),
        });
        usage = addUsage(usage, completion.usage);
        response = completion;
      } catch (error) {
        modelMs += now() - started;
        // The request was cancelled to end the turn: that is not the model failing.
        if (interrupted() && !input.signal?.aborted) return result("", "interrupted");
        if (error instanceof ProviderError) return result(error.message, "provider_error", error);
        throw error;
      }
      modelMs += now() - started;
    }
    step++;

    if (response.toolCalls.length === 0) {
      const answer: ChatMessage = { role: "assistant", content: response.content ?? "" };
      turn.push(answer);
      await input.commit({ step, messages: [answer], loaded, contractHash: contract.hash });
      return result(answer.content ?? "", "answer");
    }

    const assistant: AssistantMessage = {
      role: "assistant",
      content: response.content,
      tool_calls: [...response.toolCalls],
    };
    if (
      !recorded &&
      input.recordCalls &&
      hasEffects(input.registry, contract, response.toolCalls)
    ) {
      await input.recordCalls(step, assistant);
    }
    recorded = undefined;
    const toolsStarted = now();
    const answered = await Promise.all(
      response.toolCalls.map((call) => answerCall(input, contract, call, now)),
    );
    toolMs += now() - toolsStarted;
    const loads = answered.flatMap((a) => a.load);
    if (loads.length > 0) {
      contract = appendLoaded(contract, input.registry, loads);
      loaded = [...loaded, ...loads.filter((id) => !loaded.includes(id))];
    }
    const results: ChatMessage[] = answered.map((a, i) => ({
      role: "tool",
      tool_call_id: response.toolCalls[i]?.id as string,
      content: a.output,
    }));
    turn.push(assistant, ...results);
    await input.commit({
      step,
      messages: [assistant, ...results],
      loaded,
      contractHash: contract.hash,
    });
    if (input.steer && !interrupted()) turn.push(...(await input.steer()));
  }

  const answer: ChatMessage = {
    role: "assistant",
    content: `I stopped after ${input.maxSteps} steps without finishing. Ask me to continue, or narrow the request.`,
  };
  turn.push(answer);
  // The closing note is a step of its own: each commit moves the checkpoint one step on.
  step++;
  await input.commit({ step, messages: [answer], loaded, contractHash: contract.hash });
  return result(answer.content ?? "", "step_limit");
}

/** One signal aborted when either is; undefined when neither is given. */
function anySignal(
  a: AbortSignal | undefined,
  b: AbortSignal | undefined,
): AbortSignal | undefined {
  if (!a || !b) return a ?? b;
  return AbortSignal.any([a, b]);
}

async function answerCall(
  input: TurnInput,
  contract: TurnContract,
  call: ToolCall,
  now: () => number,
): Promise<{ output: string; load: readonly string[] }> {
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
  return { output: run.output, load: [] };
}

/** Whether any of these calls would run a tool that has effects outside the conversation. */
function hasEffects(
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
