import { runTurn, type ToolOutcome, type TurnInput, type TurnResult } from "../core/agent/loop.ts";
import { addUsage, type ChatMessage, type ToolCall, type Usage } from "../core/agent/messages.ts";
import { buildSystemPrompt } from "../core/agent/prompt.ts";
import {
  ASK_AGENT_ID,
  agentsOf,
  DEFAULT_AGENT,
  delegatesBlock,
  delegationLimits,
} from "../core/agents/index.ts";
import { VISION_CAPABILITY } from "../core/attachments/model-vision.ts";
import { withoutImages } from "../core/attachments/unseen-images.ts";
import { type Capabilities, capabilityStatus } from "../core/availability/capabilities.ts";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../core/conversation.ts";
import { toolActivity } from "../core/delivery/activity.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import { skillsBlock } from "../core/skills/index.ts";
import type { AnyTool } from "../core/tools/tool.ts";
import type { TurnStatus } from "../delivery/turn-status.ts";
import { tracedProvider } from "../observability/tracing-model.ts";
import { ToolSpans } from "../observability/tracing-tools.ts";
import type { HistoryReading } from "../store/index.ts";
import { documentId } from "../tools/attachments/document-store.ts";
import type { CheckpointWrites } from "./checkpoint-writes.ts";
import { type ConversationState, resolveConversationSkills } from "./contract.ts";
import { type DelegationHost, delegate } from "./delegation.ts";
import { runTool } from "./tool-runner.ts";
import type { TurnChoices, TurnEnvironment } from "./turn-environment.ts";
import type { TurnWatch } from "./turn-signals.ts";

/** The turn an agent loop runs for (see Turn in turn.ts), as it stands when the loop starts. */
export interface LoopTurn {
  readonly env: TurnEnvironment;
  readonly address: ConversationAddress;
  readonly state: ConversationState;
  readonly choices: TurnChoices;
  readonly writes: CheckpointWrites;
  readonly history: HistoryReading;
  readonly pending: readonly InboundMessage[];
  /** The capabilities the run started with: `vision` decides whether images are sent. */
  readonly capabilities: Capabilities;
  readonly watch: TurnWatch | undefined;
  /** Whether text of the answer has reached the person (then no fallback model is tried). */
  readonly answerShown: () => boolean;
  /** Messages that joined the turn at a step boundary (the `steer` mode). */
  readonly steer: () => Promise<readonly ChatMessage[]>;
  /**
   * What the turn's child turns (`ask_agent`) spent on their models, in
   * every request of this run (one the quiet window started over too):
   * counted into the turn's usage.
   */
  readonly childUsage: { usage: Usage };
}

/** The agent loop over the turn's history, tools and checkpoint. */
export function runAgentLoop(
  turn: LoopTurn,
  contract: TurnContract,
  approval: TurnInput["approval"],
  status: TurnStatus | undefined,
  onText: (text: string) => void,
  signal: AbortSignal,
): Promise<TurnResult> {
  const { env, address, choices, writes, watch } = turn;
  const checkpoint = writes.checkpoint;
  const { before, from } = env.store.history.split(address, turn.history, checkpoint.historyStart);
  const skills = resolveConversationSkills(env, address, turn.state);
  const last = turn.pending.at(-1);
  const streaming = Boolean(env.outbounds[address.platform]?.canEdit && env.streamEditMs);
  const steering = choices.behaviour.mode === "steer";
  // Only /stop cuts a running tool short; an interrupt lets it finish and keeps its result.
  const stop = watch ? stopOnly(watch.signal) : undefined;
  const toolSpans = new ToolSpans();
  // The turn's files so far, from the checkpoint: a resumed turn counts what its crashed run kept.
  const tally = { used: (checkpoint.files ?? []).reduce((sum, f) => sum + f.bytes, 0) };
  const files = env.toolFiles ? { files: { store: env.toolFiles, tally } } : {};
  // Images sent while the conversation ran on a vision model stay in history, unsent to one without.
  const vision = capabilityStatus(turn.capabilities, VISION_CAPABILITY);
  const seen = (messages: readonly ChatMessage[]) =>
    vision.available ? messages : withoutImages(messages, vision.reason);
  // One tool call, run with the turn's context; a child turn's calls too, with keys of their own.
  const runOne = (tool: AnyTool, args: unknown, call: ToolCall, callKey: string) =>
    toolSpans.run(tool.id, args, () =>
      runTool(
        tool,
        args,
        call,
        {
          ...address,
          ...(last?.thread !== undefined ? { thread: last.thread } : {}),
          user: last?.user ?? "",
          ...(last?.userName !== undefined ? { userName: last.userName } : {}),
          ...(last?.kind !== undefined ? { kind: last.kind } : {}),
          skills,
          callKey,
        },
        { timeoutMs: env.toolTimeoutMs, ...(stop ? { stop } : {}), ...files },
      ),
    );
  const onToolCall = (name: string, outcome: ToolOutcome, ms: number) => {
    toolSpans.reported(name, outcome, ms);
    env.observe?.toolCall?.(name, outcome, ms);
  };
  const agent = choices.agent.agent;
  const limits = delegationLimits(agent);
  const delegation: DelegationHost = {
    env,
    address,
    state: turn.state,
    checkpoint: () => writes.checkpoint,
    storeChild: (path, child, durable) => writes.storeChild(path, child, durable),
    runTool: runOne,
    onToolCall,
    spend: (usage) => {
      turn.childUsage.usage = addUsage(turn.childUsage.usage, usage);
    },
    signal,
    ...(stop ? { stop } : {}),
  };
  const root = { agent, levelsLeft: limits.depth, limits };
  const documentName = documentNames(turn);
  return runTurn({
    registry: env.registry,
    contract,
    system: buildSystemPrompt({
      persona: env.persona(address, choices.agent.agent),
      catalog: contract.catalog,
      blocks: [
        skillsBlock(skills.enabled),
        // Whom ask_agent may ask, while it is callable (a person may have switched it off).
        contract.callable.has(ASK_AGENT_ID)
          ? delegatesBlock(choices.agent.agent, agentsOf(env.config()))
          : "",
      ],
    }),
    history: seen(before),
    turn: seen(from),
    step: checkpoint.step - 1,
    loaded: checkpoint.loaded,
    ...(checkpoint.calling?.step === checkpoint.step
      ? { calling: checkpoint.calling.message }
      : {}),
    ...(approval && checkpoint.approval?.step === checkpoint.step ? { approval } : {}),
    provider: tracedProvider(env.provider),
    cacheKey: cacheKeyOf(address, choices.agent.agent.id),
    ...(choices.model !== undefined ? { model: choices.model } : {}),
    ...(choices.agent.agent.fallback !== undefined
      ? { fallback: choices.agent.agent.fallback }
      : {}),
    maxSteps: env.maxSteps,
    now: Date.now,
    signal,
    runTool: (tool, args, call) => {
      const finished = status?.tool(toolActivity(tool.id, args, documentName));
      // A child turn runs inside the call's span: its model requests and tools nest under it.
      const ran =
        tool.id === ASK_AGENT_ID
          ? toolSpans.run(tool.id, args, () => delegate(delegation, root, tool, args, call))
          : runOne(tool, args, call, `${checkpoint.turnId}.${call.id}`);
      return ran.finally(finished);
    },
    onToolCall,
    ...(streaming ? { onText, answerShown: turn.answerShown } : {}),
    recordCalls: writes.recordCalls,
    commit: writes.commit,
    ...(watch ? { interrupt: watch.signal } : {}),
    ...(steering ? { steer: turn.steer } : {}),
  }).then((result) => ({ ...result, usage: addUsage(result.usage, turn.childUsage.usage) }));
}

/**
 * The name of a document the person sent this turn, by the id
 * `read_attachment` takes: what its status line may show ("is reading
 * report.pdf…"). A document from an earlier turn is shown as "a document".
 */
function documentNames(turn: LoopTurn): (id: string) => string | undefined {
  return (id) => {
    const sent = [
      ...turn.pending.flatMap((message) => message.attachments),
      ...(turn.writes.checkpoint.attachments ?? []),
    ];
    return sent.find((file) => documentId(file.ref) === id)?.name;
  };
}

/**
 * The prompt cache a conversation's requests go to: the conversation's key,
 * with the agent's id when another than `default` answers, so two agents'
 * prompts never share a cache (and a config without agents keeps its keys).
 */
function cacheKeyOf(address: ConversationAddress, agent: string): string {
  const key = conversationKey(address);
  return agent === DEFAULT_AGENT ? key : `${key}#agent:${agent}`;
}

/** A signal that aborts only when `signal` aborts for a stop. */
function stopOnly(signal: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const relay = () => {
    if (signal.reason === "stop") controller.abort("stop");
  };
  if (signal.aborted) relay();
  else signal.addEventListener("abort", relay, { once: true });
  return controller.signal;
}
