import type { ToolOutcome, TurnResult } from "../core/agent/loop.ts";
import type { Provider } from "../core/agent/provider.ts";
import { isQueueMode, type QueueBehaviour, type QueueMode } from "../core/agent/queue-mode.ts";
import type { AgentChoice, AgentDefinition } from "../core/agents/index.ts";
import type { ApprovalPolicy } from "../core/approvals/approval.ts";
import { findModel, type ModelPrice } from "../core/config/index.ts";
import type { ConversationAddress, InboundMessage } from "../core/conversation.ts";
import type { DeliveryEnvironment } from "../delivery/delivery-environment.ts";
import type { AttachmentReader } from "../ports/file-source.ts";
import type { ScheduledRuns } from "../ports/schedules.ts";
import type { TargetGoneError } from "../ports/target-gone.ts";
import { type StoredSettings, settingOf } from "../store/index.ts";
import type { ContractSources } from "./contract.ts";
import { conversationAgent } from "./conversation-agent.ts";
import { conversationModel } from "./conversation-model.ts";
import type { TurnSignals } from "./turn-signals.ts";

/** Everything a turn needs from the process around it. */
export interface TurnEnvironment extends ContractSources, DeliveryEnvironment {
  readonly provider: Provider;
  /**
   * The persona block of a conversation's system prompt; the same bytes
   * every turn until people change it. `agent` is the agent that answers;
   * its own persona, when it has one, replaces the conversation's.
   */
  readonly persona: (address: ConversationAddress, agent?: AgentDefinition) => string;
  readonly maxSteps: number;
  readonly toolTimeoutMs: number;
  readonly history: { readonly maxTokens: number; readonly keepLast: number };
  readonly observe?: TurnObserver;
  /**
   * How the conversation takes messages that arrive during a turn, given the
   * mode chosen in chat (`/queue`), if any; unset: collect, no quiet window.
   */
  readonly queueBehaviour?: (address: ConversationAddress, chosen?: QueueMode) => QueueBehaviour;
  /** Fetches and reads the files people sent, at the turn; unset: files are only named. */
  readonly attachments?: AttachmentReader;
  /** Stop and interrupt signals for running turns; unset: turns cannot be stopped. */
  readonly signals?: TurnSignals;
  /**
   * The approvals desk: the approval policy, and the expiry a parked turn
   * schedules; unset: the config's policy, and nothing ends a wait on time
   * (a decision, `/stop` or a message still does).
   */
  readonly approvals?: TurnApprovals;
  /**
   * Told when a turn's answer could not be delivered because the platform
   * says its conversation is gone for the bot (deleted, archived, the bot
   * removed): the turn ends without its answer, never retried, and the
   * process stops what keeps speaking there (a schedule pauses). Unset:
   * the turn ends all the same, logged.
   */
  readonly onTargetGone?: (gone: TargetGone) => Promise<void>;
  /**
   * The schedules, asked when a turn begins: a scheduled run whose schedule
   * was paused or removed since its tick queued it is dropped, not run
   * (see firstStoppedRun). Unset: every queued run runs.
   */
  readonly scheduledRuns?: ScheduledRuns;
}

/** A conversation the platform says is gone, and the messages whose answer it refused. */
export interface TargetGone {
  readonly address: ConversationAddress;
  readonly messages: readonly InboundMessage[];
  readonly error: TargetGoneError;
}

/**
 * What a turn asks of the approvals desk (queue/approval-desk.ts, which
 * implements it): the policy a request follows, and the job that ends a
 * parked turn's wait on time.
 */
export interface TurnApprovals {
  policyFor(address: ConversationAddress): ApprovalPolicy;
  scheduleExpiry(address: ConversationAddress, id: string, expiresAt: number): Promise<void>;
}

/** Hooks for metrics; every one optional. */
export interface TurnObserver {
  turn?(info: {
    address: ConversationAddress;
    result: TurnResult | undefined;
    outcome: string;
    ms: number;
    contractChanged: boolean;
    /** The turn's id, which its answer's rating is stored under (the console shows votes by it). */
    turnId?: string;
  }): void;
  toolCall?(tool: string, outcome: ToolOutcome, ms: number): void;
}

/** The lease was lost to another worker: stop without writing or delivering anything more. */
export class LostLeaseError extends Error {
  override readonly name = "LostLeaseError";
}

/** Without a queue setting: every waiting message makes the next turn, at once. */
const COLLECT_AT_ONCE: QueueBehaviour = { mode: "collect", debounceMs: 0 };

/** What people chose for a conversation, as its next turn runs with it. */
export interface TurnChoices {
  readonly behaviour: QueueBehaviour;
  /** The model to name in requests; undefined: the provider's own. */
  readonly model: string | undefined;
  /** The price of the model the turn runs on, from the config's `models:` list. */
  readonly price: ModelPrice | undefined;
  /** The agent that answers this turn (its persona, model, intent and skills), and why. */
  readonly agent: AgentChoice;
}

/**
 * Reads, at a turn boundary, what `/queue` and `/model` chose (the
 * conversation's, else its channel's) and resolves it against the config:
 * a chat choice of a model the list no longer has is skipped.
 */
export async function readTurnChoices(
  env: TurnEnvironment,
  address: ConversationAddress,
): Promise<TurnChoices> {
  return choicesOf(env, address, await env.store.settings.read(address));
}

/** {@link readTurnChoices} from settings read elsewhere (a turn snapshot). */
export function choicesOf(
  env: TurnEnvironment,
  address: ConversationAddress,
  stored: StoredSettings,
): TurnChoices {
  const queue = settingOf(stored, "queue");
  const behaviour =
    env.queueBehaviour?.(address, isQueueMode(queue) ? queue : undefined) ?? COLLECT_AT_ONCE;
  const config = env.config();
  const agent = conversationAgent(config, address, stored);
  const model = conversationModel(config.models, address, stored, agent.agent);
  const price = findModel(config.models, model ?? env.model ?? "")?.price;
  return { behaviour, model, price, agent };
}
