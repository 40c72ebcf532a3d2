import type { PendingCall } from "../approvals/approval.ts";
import { appendLoaded, type TurnContract } from "../loading/freeze.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { AnyTool } from "../tools/tool.ts";
import { hasEffects, type ToolOutcome, type ToolRun } from "./answer-call.ts";
import { answerDecided, askingCalls, type DecidedApproval } from "./approval-calls.ts";
import type { ToolFileRecord } from "./checkpoint.ts";
import {
  type AssistantMessage,
  addUsage,
  type ChatMessage,
  type ProviderBlock,
  type ToolCall,
  type Usage,
  ZERO_USAGE,
} from "./messages.ts";
import { type Provider, ProviderError } from "./provider.ts";

export type { ToolOutcome, ToolRun } from "./answer-call.ts";
export type { DecidedApproval } from "./approval-calls.ts";

/** What the loop stores after each step: the step's messages and what discovery loaded so far. */
export interface StepCommit {
  readonly step: number;
  readonly messages: readonly ChatMessage[];
  readonly loaded: readonly string[];
  readonly contractHash: string;
  /** Files the step's tools made, in call order: the checkpoint records them with the step. */
  readonly files?: readonly ToolFileRecord[];
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
  /** The fallback chain of the agent that answers; unset: the model entry's own. */
  readonly fallback?: readonly string[];
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
   * The decision on the calls of `calling` that waited for approval (the
   * turn was parked on them). Without it, a step that calls a tool under
   * `ask` ends the turn with `stop: "awaiting_approval"` before any of its
   * calls runs.
   */
  readonly approval?: DecidedApproval;
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
  /**
   * Whether text of this turn's answer has reached the person (an earlier
   * step streamed it): asked before each request, which then says so (see
   * `ProviderRequest.answerShown`). Unset: nothing is shown before the end.
   */
  readonly answerShown?: () => boolean;
  readonly onToolCall?: (name: string, outcome: ToolOutcome, ms: number) => void;
  /** The clock, for model and tool timings: the core reads no clock it is not handed. */
  readonly now: () => number;
  readonly signal?: AbortSignal;
}

export interface TurnResult {
  /** What the person is told. */
  readonly answer: string;
  readonly stop: "answer" | "step_limit" | "provider_error" | "interrupted" | "awaiting_approval";
  readonly steps: number;
  readonly usage: Usage;
  /** Provider time in ms, so the shell can tell framework overhead from model time. */
  readonly modelMs: number;
  readonly toolMs: number;
  readonly contract: TurnContract;
  readonly loaded: readonly string[];
  readonly error?: ProviderError;
  /** With `awaiting_approval`: the step's calls that need a person's decision (the step's calls are recorded). */
  readonly pending?: readonly PendingCall[];
}

/**
 * Runs one turn: ask the model, run the tools it calls (in parallel, each
 * answered even when it cannot run), and repeat until it answers or the step
 * limit is reached. Every step is committed before the next begins, so a turn
 * resumed from its checkpoint continues exactly where it stopped.
 */
export async function runTurn(input: TurnInput): Promise<TurnResult> {
  const run = new TurnRun(input);
  try {
    return await runSteps(input, run);
  } finally {
    run.dispose();
  }
}

async function runSteps(input: TurnInput, run: TurnRun): Promise<TurnResult> {
  const last = input.turn.at(-1);
  if (last?.role === "assistant" && !last.tool_calls?.length) {
    // The turn was answered before a crash; only delivery remains.
    return run.result(last.content ?? "", "answer");
  }
  while (run.step < input.maxSteps) {
    if (run.interrupted()) return run.result("", "interrupted");
    const response = await run.respond();
    if ("steps" in response) return response;
    run.step++;
    if (response.toolCalls.length === 0)
      return run.finish(response.content ?? "", "answer", response.reasoning);
    const pending = await run.answerCalls(response);
    if (pending) return { ...run.result("", "awaiting_approval"), pending };
    if (input.steer && !run.interrupted()) run.turn.push(...(await input.steer()));
  }
  // The closing note is a step of its own: each commit moves the checkpoint one step on.
  run.step++;
  return run.finish(
    `I stopped after ${input.maxSteps} steps without finishing. Ask me to continue, or narrow the request.`,
    "step_limit",
  );
}

/** What the model said in one step: an answer, or tool calls (with any text beside them). */
interface ModelResponse {
  readonly content: string | null;
  readonly toolCalls: readonly ToolCall[];
  /** Kept with the step so the provider can send it back unchanged (see AssistantMessage). */
  readonly reasoning?: readonly ProviderBlock[];
}

/** One turn as it runs: its messages, the contract as discovery grows it, and what it has cost. */
class TurnRun {
  readonly turn: ChatMessage[];
  step: number;
  #contract: TurnContract;
  #loaded: readonly string[];
  #usage = ZERO_USAGE;
  #modelMs = 0;
  #toolMs = 0;
  /** Calls a crashed run stored before running them: the next step runs these, not new ones. */
  #recorded: AssistantMessage | undefined;
  /** The decision on the recorded calls, until the step that answers them. */
  #approval: DecidedApproval | undefined;
  readonly #signal: AbortSignal | undefined;
  /** Lets go of the signals the turn's own signal follows. */
  readonly dispose: () => void;

  constructor(private readonly input: TurnInput) {
    this.turn = [...input.turn];
    this.step = input.step;
    this.#contract = input.contract;
    this.#loaded = [...input.loaded];
    this.#recorded = input.calling?.tool_calls?.length ? input.calling : undefined;
    this.#approval = this.#recorded ? input.approval : undefined;
    const combined = anySignal(input.signal, input.interrupt);
    this.#signal = combined.signal;
    this.dispose = combined.dispose;
  }

  /** Calls stored before a crash still run (their effects may be half done); after them, the turn ends. */
  interrupted(): boolean {
    return this.input.interrupt?.aborted === true && !this.#recorded;
  }

  result(answer: string, stop: TurnResult["stop"], error?: ProviderError): TurnResult {
    return {
      answer,
      stop,
      steps: this.step,
      usage: this.#usage,
      modelMs: this.#modelMs,
      toolMs: this.#toolMs,
      contract: this.#contract,
      loaded: this.#loaded,
      ...(error ? { error } : {}),
    };
  }

  /** The step's calls stored before a crash, else the model's response; the turn's end when the model fails. */
  async respond(): Promise<ModelResponse | TurnResult> {
    const recorded = this.#recorded;
    if (recorded)
      return {
        content: recorded.content ?? null,
        toolCalls: recorded.tool_calls ?? [],
        ...(recorded.reasoning ? { reasoning: recorded.reasoning } : {}),
      };
    const { input } = this;
    const started = input.now();
    try {
      const completion = await input.provider.complete({
        system: input.system,
        tools: this.#contract.tools,
        messages: [...input.history, ...this.turn],
        cacheKey: input.cacheKey,
        ...(input.model !== undefined ? { model: input.model } : {}),
        ...(input.fallback !== undefined ? { fallback: input.fallback } : {}),
        ...(this.#signal ? { signal: this.#signal } : {}),
        ...(input.onText ? { onText: input.onText } : {}),
        ...(input.answerShown?.() ? { answerShown: true } : {}),
      });
      this.#usage = addUsage(this.#usage, completion.usage);
      this.#modelMs += input.now() - started;
      return {
        content: completion.content,
        toolCalls: completion.toolCalls,
        ...(completion.reasoning?.length ? { reasoning: completion.reasoning } : {}),
      };
    } catch (error) {
      this.#modelMs += input.now() - started;
      // The request was cancelled to end the turn: that is not the model failing.
      if (this.interrupted() && !input.signal?.aborted) return this.result("", "interrupted");
      if (error instanceof ProviderError)
        return this.result(error.message, "provider_error", error);
      throw error;
    }
  }

  /**
   * Answers every call of the step, appends what discovery loaded to the
   * contract, and commits the step. A step that calls a tool under `ask`
   * with no decision yet is recorded instead and its calls needing one come
   * back: none of the step's calls runs until it is decided.
   */
  async answerCalls(response: ModelResponse): Promise<readonly PendingCall[] | undefined> {
    const { input } = this;
    const assistant: AssistantMessage = {
      role: "assistant",
      content: response.content,
      tool_calls: [...response.toolCalls],
      ...(response.reasoning ? { reasoning: response.reasoning } : {}),
    };
    const approval = this.#approval;
    const asking = approval ? [] : askingCalls(this.#contract, response.toolCalls);
    if (
      !this.#recorded &&
      input.recordCalls &&
      (asking.length > 0 || hasEffects(input.registry, this.#contract, response.toolCalls))
    ) {
      await input.recordCalls(this.step, assistant);
    }
    if (asking.length > 0) return asking;
    this.#recorded = undefined;
    this.#approval = undefined;
    const started = input.now();
    const contract = this.#contract;
    const answered = await Promise.all(
      response.toolCalls.map((call) => answerDecided(input, contract, call, approval, input.now)),
    );
    this.#toolMs += input.now() - started;
    const loads = answered.flatMap((a) => a.load);
    if (loads.length > 0) {
      const loaded = this.#loaded;
      this.#contract = appendLoaded(contract, input.registry, loads);
      this.#loaded = [...loaded, ...loads.filter((id) => !loaded.includes(id))];
    }
    const results: ChatMessage[] = answered.map((a, i) => ({
      role: "tool",
      tool_call_id: response.toolCalls[i]?.id as string,
      content: a.output,
    }));
    await this.#commit(
      [assistant, ...results],
      answered.flatMap((a) => a.files ?? []),
    );
    return undefined;
  }

  /** Ends the turn with a closing message, committed as this step. */
  async finish(
    content: string,
    stop: "answer" | "step_limit",
    reasoning?: readonly ProviderBlock[],
  ): Promise<TurnResult> {
    await this.#commit([{ role: "assistant", content, ...(reasoning ? { reasoning } : {}) }]);
    return this.result(content, stop);
  }

  async #commit(messages: ChatMessage[], files: readonly ToolFileRecord[] = []): Promise<void> {
    this.turn.push(...messages);
    await this.input.commit({
      step: this.step,
      messages,
      loaded: this.#loaded,
      contractHash: this.#contract.hash,
      ...(files.length > 0 ? { files } : {}),
    });
  }
}

/**
 * One signal aborted when either is (with that one's reason); undefined when
 * neither is given. Not `AbortSignal.any`: on Node 20 it costs a turn some
 * 15 µs of CPU and weak references for the collector to sweep. The
 * listeners on `a` and `b` are removed by `dispose` (the turn's end), so a
 * signal that outlives many turns (the lease's) does not gather them.
 */
function anySignal(
  a: AbortSignal | undefined,
  b: AbortSignal | undefined,
): { signal: AbortSignal | undefined; dispose(): void } {
  if (!a || !b) return { signal: a ?? b, dispose: () => {} };
  if (a.aborted) return { signal: a, dispose: () => {} };
  if (b.aborted) return { signal: b, dispose: () => {} };
  const controller = new AbortController();
  const dispose = () => {
    a.removeEventListener("abort", onA);
    b.removeEventListener("abort", onB);
  };
  const onA = () => {
    dispose();
    controller.abort(a.reason);
  };
  const onB = () => {
    dispose();
    controller.abort(b.reason);
  };
  a.addEventListener("abort", onA);
  b.addEventListener("abort", onB);
  return { signal: controller.signal, dispose };
}
