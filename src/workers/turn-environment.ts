import type { ContractSources, ConversationState } from "../conversation/contract.ts";
import type { Checkpoint } from "../core/agent/checkpoint.ts";
import type { ConversationAddress, InboundMessage } from "../core/agent/inbound.ts";
import type { ToolOutcome, TurnResult } from "../core/agent/loop.ts";
import type { Provider } from "../core/agent/provider.ts";
import type { QueueBehaviour, QueueMode } from "../core/agent/queue-mode.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import type { LoggerPort } from "../core/logger.ts";
import type { AttachmentReader } from "../ports/file-source.ts";
import type { Outbounds } from "../ports/outbound.ts";
import type { ToolFileStore } from "../ports/tool-files.ts";
import type { HistoryReading } from "../store/index.ts";
import type { ApprovalDesk } from "./approval-desk.ts";
import type { Inbox } from "./inbox.ts";
import type { TurnSignals } from "./turn-signals.ts";

/** Everything a turn needs from the process around it. */
export interface TurnEnvironment extends ContractSources {
  readonly inbox: Inbox;
  readonly provider: Provider;
  readonly outbounds: Outbounds;
  /** The persona block of a conversation's system prompt; the same bytes every turn until people change it. */
  readonly persona: (address: ConversationAddress) => string;
  readonly maxSteps: number;
  readonly toolTimeoutMs: number;
  readonly history: { readonly maxTokens: number; readonly keepLast: number };
  /** Stream answers by editing the posted message at most this often (ms); 0 or unset: no streaming. */
  readonly streamEditMs?: number;
  readonly logger: LoggerPort;
  readonly observe?: TurnObserver;
  /**
   * How the conversation takes messages that arrive during a turn, given the
   * mode chosen in chat (`/queue`), if any; unset: collect, no quiet window.
   */
  readonly queueBehaviour?: (address: ConversationAddress, chosen?: QueueMode) => QueueBehaviour;
  /** Fetches and reads the files people sent, at the turn; unset: files are only named. */
  readonly attachments?: AttachmentReader;
  /** Keeps the files tools return until the answer goes out; unset: such files are refused with a note. */
  readonly toolFiles?: ToolFileStore;
  /** Stop and interrupt signals for running turns; unset: turns cannot be stopped. */
  readonly signals?: TurnSignals;
  /**
   * The approvals desk: the approval policy, and the expiry a parked turn
   * schedules; unset: the config's policy, and nothing ends a wait on time
   * (a decision, `/stop` or a message still does).
   */
  readonly approvals?: ApprovalDesk;
}

/** Hooks for metrics; every one optional. */
export interface TurnObserver {
  turn?(info: {
    address: ConversationAddress;
    result: TurnResult | undefined;
    outcome: string;
    ms: number;
    contractChanged: boolean;
  }): void;
  toolCall?(tool: string, outcome: ToolOutcome, ms: number): void;
}

/** The lease was lost to another worker: stop without writing or delivering anything more. */
export class LostLeaseError extends Error {
  override readonly name = "LostLeaseError";
}

/** Where a turn starts from: its checkpoint and what the turn boundary read. */
export interface TurnStart {
  readonly checkpoint: Checkpoint;
  readonly pending: readonly InboundMessage[];
  readonly history: HistoryReading;
  readonly state: ConversationState;
  /** Frozen when the turn began in this run; absent for a resumed turn, which freezes anew. */
  readonly contract?: TurnContract | undefined;
  /** The begin write of a turn begun in this run, in flight (see TurnSteps). */
  readonly begun?: Promise<boolean>;
  readonly contractChanged?: Promise<boolean>;
}
