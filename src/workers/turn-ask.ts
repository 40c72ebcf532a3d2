import { resolveConversationSkills } from "../conversation/contract.ts";
import { type ConversationAddress, conversationKey } from "../core/agent/inbound.ts";
import { type DecidedApproval, runTurn, type TurnResult } from "../core/agent/loop.ts";
import type { ChatMessage } from "../core/agent/messages.ts";
import { buildSystemPrompt } from "../core/agent/prompt.ts";
import { VISION_CAPABILITY } from "../core/attachments/model-vision.ts";
import { withoutImages } from "../core/attachments/unseen-images.ts";
import { type Capabilities, capabilityStatus } from "../core/availability/capabilities.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import { skillsBlock } from "../core/skills/index.ts";
import { tracedProvider } from "../observability/tracing-model.ts";
import { ToolSpans } from "../observability/tracing-tools.ts";
import { runTool } from "./tool-runner.ts";
import type { TurnChoices } from "./turn-choices.ts";
import type { TurnEnvironment, TurnStart } from "./turn-environment.ts";
import type { TurnWatch } from "./turn-signals.ts";
import type { TurnSteps } from "./turn-steps.ts";

/** What the loop runs under: the frozen tools, the checkpoint's writes, the lease and the signals. */
export interface TurnRun {
  readonly contract: TurnContract;
  readonly steps: TurnSteps;
  readonly signal: AbortSignal;
  readonly watch: TurnWatch | undefined;
  readonly choices: TurnChoices;
  /** The turn's capabilities, for the model it runs on. */
  readonly capabilities: Capabilities;
  /** The decision on the request the turn was parked on, for the step's recorded calls. */
  readonly approval?: DecidedApproval;
}

/** The agent loop over this turn's history, tools and checkpoint. */
export function askModel(
  env: TurnEnvironment,
  address: ConversationAddress,
  start: TurnStart,
  { contract, steps, signal, watch, choices, capabilities, approval }: TurnRun,
  onText: (text: string) => void,
): Promise<TurnResult> {
  const { checkpoint, pending } = start;
  const { before, from } = env.store.history.split(address, start.history, checkpoint.historyStart);
  const skills = resolveConversationSkills(env, address, start.state);
  const last = pending.at(-1);
  const streaming = Boolean(env.outbounds[address.platform]?.canEdit && env.streamEditMs);
  const steering = choices.behaviour.mode === "steer";
  // Only /stop cuts a running tool short; an interrupt lets it finish and keeps its result.
  const stop = watch ? stopOnly(watch.signal) : undefined;
  const toolSpans = new ToolSpans();
  // The turn's files so far, from the checkpoint: a resumed turn counts what its crashed run kept.
  const tally = { used: (checkpoint.files ?? []).reduce((sum, f) => sum + f.bytes, 0) };
  const files = env.toolFiles ? { files: { store: env.toolFiles, tally } } : {};
  // Images sent while the conversation ran on a vision model stay in history, unsent to one without.
  const vision = capabilityStatus(capabilities, VISION_CAPABILITY);
  const seen = (messages: readonly ChatMessage[]) =>
    vision.available ? messages : withoutImages(messages, vision.reason);
  return runTurn({
    registry: env.registry,
    contract,
    system: buildSystemPrompt({
      persona: env.persona(address),
      catalog: contract.catalog,
      blocks: [skillsBlock(skills.enabled)],
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
    cacheKey: conversationKey(address),
    ...(choices.model !== undefined ? { model: choices.model } : {}),
    maxSteps: env.maxSteps,
    now: Date.now,
    signal,
    runTool: (tool, args, call) =>
      toolSpans.run(tool.id, args, () =>
        runTool(
          tool,
          args,
          call,
          {
            ...address,
            ...(last?.thread !== undefined ? { thread: last.thread } : {}),
            user: last?.user ?? "",
            skills,
            callKey: `${checkpoint.turnId}.${call.id}`,
          },
          { timeoutMs: env.toolTimeoutMs, ...(stop ? { stop } : {}), ...files },
        ),
      ),
    onToolCall: (name, outcome, ms) => {
      toolSpans.reported(name, outcome, ms);
      env.observe?.toolCall?.(name, outcome, ms);
    },
    ...(streaming ? { onText } : {}),
    recordCalls: steps.recordCalls,
    commit: steps.commit,
    ...(watch ? { interrupt: watch.signal } : {}),
    ...(steering ? { steer: () => steps.steer(watch) } : {}),
  });
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
