import type { Checkpoint, ChildCheckpoint } from "../core/agent/checkpoint.ts";
import { runTurn, type ToolOutcome, type ToolRun, type TurnResult } from "../core/agent/loop.ts";
import { addUsage, type ToolCall, type Usage, ZERO_USAGE } from "../core/agent/messages.ts";
import { buildSystemPrompt } from "../core/agent/prompt.ts";
import {
  type AgentDefinition,
  ASK_AGENT_ID,
  agentsOf,
  budgetedProvider,
  CHILD_BLOCK,
  childAnswer,
  childPath,
  type DelegationLimits,
  delegatesBlock,
  delegationStatus,
  refuseDelegation,
} from "../core/agents/index.ts";
import { type ConversationAddress, conversationKey } from "../core/conversation.ts";
import { checkArguments } from "../core/tools/arguments.ts";
import type { AnyTool } from "../core/tools/tool.ts";
import { inSpan } from "../observability/tracing.ts";
import { tracedProvider } from "../observability/tracing-model.ts";
import { type ConversationState, childModel, freezeState } from "./contract.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

/**
 * What a delegation needs from the turn it runs in: the conversation's
 * state (the same scopes and floor as the turn), the turn's checkpoint to
 * store the child under, and the turn's tool runner.
 */
export interface DelegationHost {
  readonly env: TurnEnvironment;
  readonly address: ConversationAddress;
  readonly state: ConversationState;
  /** The checkpoint as last written: a resumed turn finds its children's progress there. */
  checkpoint(): Checkpoint;
  /** Stores a child's progress under the turn's checkpoint; with `durable`, waits until it is stored. */
  storeChild(path: string, child: ChildCheckpoint, durable: boolean): Promise<void>;
  /** Runs one tool of a child's step, with the turn's context and this call's idempotency key. */
  runTool(tool: AnyTool, args: unknown, call: ToolCall, callKey: string): Promise<ToolRun>;
  /** Told how each of a child's tool calls ended (metrics, spans). */
  onToolCall?(name: string, outcome: ToolOutcome, ms: number): void;
  /** Counts a child's model usage into the turn's. */
  spend(usage: Usage): void;
  /** The turn's signal (a lost lease): the child's model request is cancelled with it. */
  readonly signal: AbortSignal;
  /** `/stop`: the child ends at its next step boundary. */
  readonly stop?: AbortSignal;
}

/** Who is asking: the agent, how deep it may still go, where it is in the tree, and the tree's bounds. */
export interface Caller {
  readonly agent: AgentDefinition;
  /** Levels of agents that may still run below the caller. */
  readonly levelsLeft: number;
  /** The caller's own call path; undefined for the turn itself. */
  readonly path?: string;
  /** The bounds of the whole delegation: those of the turn's agent. */
  readonly limits: DelegationLimits;
}

/**
 * Runs one `ask_agent` call: a child turn of the agent asked, with its own
 * contract (its base intent over the live registry, frozen as a turn's is),
 * persona and model, inside the calling step and on the conversation's
 * lease. It posts nothing: its final text is the call's result. Each of its
 * steps is stored under the turn's checkpoint (`children`), so a turn
 * resumed after a crash finishes the child where it stopped, without
 * repeating a tool call it already answered.
 */
export async function delegate(
  host: DelegationHost,
  caller: Caller,
  tool: AnyTool,
  args: unknown,
  call: ToolCall,
): Promise<ToolRun> {
  const parsed = checkArguments(tool, args);
  if (!parsed.ok) return { outcome: "invalid_args", output: parsed.problem };
  const { agent: asked, task } = parsed.args as { agent: string; task: string };
  const agents = agentsOf(host.env.config());
  const refused = refuseDelegation(caller.agent, asked, agents);
  if (refused !== undefined) return { outcome: "error", output: refused };
  const status = delegationStatus(caller.agent, caller.levelsLeft);
  if (!status.available)
    return { outcome: "error", output: `Nothing was asked: ${status.reason}.` };
  const callee = agents.get(asked) as AgentDefinition;
  const path = childPath(caller.path, call.id);
  const result = await inSpan(
    "switchyard.agent.delegate",
    { attributes: { "switchyard.agent": callee.id, "switchyard.agent.caller": caller.agent.id } },
    () =>
      runChild(host, { ...caller, agent: callee, levelsLeft: caller.levelsLeft - 1, path }, task),
  );
  return childAnswer(callee, result);
}

/** The child turn itself: resumed from the checkpoint when a crashed run stored some of it. */
async function runChild(
  host: DelegationHost,
  me: Required<Caller>,
  task: string,
): Promise<TurnResult> {
  const { env, address, state } = host;
  const callee = me.agent;
  const config = env.config();
  const stored = host.checkpoint().children?.[me.path];
  let child: ChildCheckpoint =
    stored?.agent === callee.id
      ? stored
      : {
          agent: callee.id,
          step: 0,
          messages: [{ role: "user", content: task }],
          loaded: [],
          usage: ZERO_USAGE,
        };
  const contract = freezeState(env, address, state, child.loaded, me);
  const model = childModel(config, address, callee);
  let usage = child.usage;
  const provider = budgetedProvider(tracedProvider(env.provider), me.limits.tokens, usage, (u) => {
    usage = addUsage(usage, u);
    host.spend(u);
  });
  const turnId = host.checkpoint().turnId;
  return runTurn({
    registry: env.registry,
    contract,
    system: buildSystemPrompt({
      persona: env.persona(address, callee),
      catalog: contract.catalog,
      blocks: [
        CHILD_BLOCK,
        contract.callable.has(ASK_AGENT_ID) ? delegatesBlock(callee, agentsOf(config)) : "",
      ],
    }),
    // The child sees its task, not the conversation: its caller writes what it needs into it.
    history: [],
    turn: child.messages,
    step: child.step,
    loaded: child.loaded,
    ...(child.calling ? { calling: child.calling } : {}),
    provider,
    cacheKey: `${conversationKey(address)}#agent:${callee.id}`,
    ...(model !== undefined ? { model } : {}),
    ...(callee.fallback !== undefined ? { fallback: callee.fallback } : {}),
    maxSteps: me.limits.steps,
    now: Date.now,
    signal: host.signal,
    ...(host.stop ? { interrupt: host.stop } : {}),
    runTool: (tool, args, call) =>
      tool.id === ASK_AGENT_ID
        ? delegate(host, me, tool, args, call)
        : host.runTool(tool, args, call, `${turnId}.${childPath(me.path, call.id)}`),
    ...(host.onToolCall ? { onToolCall: host.onToolCall } : {}),
    recordCalls: async (_step, assistant) => {
      child = { ...child, calling: assistant };
      // The calls must be stored before a tool with effects runs.
      await host.storeChild(me.path, child, true);
    },
    commit: async (step) => {
      const { calling: _done, ...rest } = child;
      child = {
        ...rest,
        step: step.step,
        messages: [...child.messages, ...step.messages],
        loaded: [...step.loaded],
        usage,
      };
      await host.storeChild(me.path, child, false);
    },
  });
}
