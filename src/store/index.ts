import type { Redis } from "ioredis";
import { type LoggerPort, silentLogger } from "../core/logger.ts";
import { AccessStore } from "./access-store.ts";
import { ApprovalStore } from "./approval-store.ts";
import { FeedbackStore } from "./feedback-store.ts";
import { HistoryStore } from "./history-store.ts";
import { IntentStore } from "./intent-store.ts";
import { DEFAULT_PREFIX, KeyScheme } from "./keys.ts";
import { RateLimitStore } from "./rate-limit-store.ts";
import { ReservationStore } from "./reservation-store.ts";
import { ResetStore } from "./reset-store.ts";
import { ScopeStore } from "./scope-store.ts";
import { SettingsStore } from "./settings-store.ts";
import { TurnStore } from "./turn-store.ts";
import { UsageStore } from "./usage-store.ts";

export {
  AccessStore,
  type Approval,
  MAX_PENDING_REQUESTS,
  type PairingRequest,
  type PendingPage,
  pairingCodeHash,
} from "./access-store.ts";
export {
  APPROVAL_KEEP_MS,
  ApprovalStore,
  type DecideOutcome,
  newApprovalId,
  type StoredDecision,
} from "./approval-store.ts";
export { StoreInputError } from "./errors.ts";
export {
  type AnswerRating,
  FEEDBACK_KEEP_MS,
  FEEDBACK_WHY_MS,
  FeedbackStore,
  type RatedAnswerRef,
  type RatedTurn,
  type StoredVote,
  type VoteOutcome,
} from "./feedback-store.ts";
export { type CompactionLimits, groupMessages, type MessageGroup } from "./history-groups.ts";
export { type CompactionResult, type HistoryReading, HistoryStore } from "./history-store.ts";
export { IntentStore } from "./intent-store.ts";
export {
  type AccessKeys,
  type ChannelRef,
  type ConversationKeys,
  DEFAULT_PREFIX,
  KeyScheme,
  type RateLimitRef,
  type ReservationKeys,
  type ReservationOwner,
  type ScopeKind,
  type ScopeRef,
  type UsageOwner,
  type WorkspaceRef,
} from "./keys.ts";
export { type RateCheck, RateLimitStore } from "./rate-limit-store.ts";
export {
  type HeldMessage,
  type ReservationCheck,
  ReservationStore,
} from "./reservation-store.ts";
export { type ResetKind, ResetStore } from "./reset-store.ts";
export {
  type ScopeChange,
  ScopeStore,
  type SkillToggles,
  type StoredStack,
} from "./scope-store.ts";
export {
  type SettingName,
  type SettingScope,
  SettingsStore,
  type StoredSettings,
  settingOf,
} from "./settings-store.ts";
export { type CheckpointExpectation, TurnStore } from "./turn-store.ts";
export { type OwnedCounting, UsageStore, type UsageSubject } from "./usage-store.ts";

export interface StoreOptions {
  /** Every key starts with `<prefix>:`; default "sy". */
  readonly prefix?: string;
  /** Where damaged stored data is reported. */
  readonly logger?: LoggerPort;
}

/** Switchyard's Redis state, one store per concept, sharing one connection and key scheme. */
export interface Store {
  readonly keys: KeyScheme;
  readonly intent: IntentStore;
  readonly scopes: ScopeStore;
  readonly history: HistoryStore;
  readonly turns: TurnStore;
  /** Pairing codes, approvals and refusal notices. */
  readonly access: AccessStore;
  /** Message counts of the rate limits. */
  readonly limits: RateLimitStore;
  /** Token usage per conversation, person and workspace, per day and month. */
  readonly usage: UsageStore;
  /** What turns admitted and not yet counted hold against the token budgets. */
  readonly reservations: ReservationStore;
  /** `/model` and `/queue` choices per conversation and channel. */
  readonly settings: SettingsStore;
  /** `/new`, atomic against a turn in progress. */
  readonly resets: ResetStore;
  /** Approval requests' decisions and claimed calls (`ask` tools). */
  readonly approvals: ApprovalStore;
  /** Rated answers and the votes on them (👍 / 👎). */
  readonly feedback: FeedbackStore;
}

/**
 * @example
 * const store = createStore(new Redis(process.env.REDIS_URL), { prefix: "sy", logger });
 * const { intent } = await store.intent.read(address);
 * const layers = await store.scopes.readStack(address);
 */
export function createStore(redis: Redis, options: StoreOptions = {}): Store {
  const keys = new KeyScheme(options.prefix ?? DEFAULT_PREFIX);
  const logger = options.logger ?? silentLogger;
  return {
    keys,
    intent: new IntentStore(redis, keys, logger),
    scopes: new ScopeStore(redis, keys, logger),
    history: new HistoryStore(redis, keys, logger),
    turns: new TurnStore(redis, keys, logger),
    access: new AccessStore(redis, keys),
    limits: new RateLimitStore(redis),
    usage: new UsageStore(redis, keys),
    reservations: new ReservationStore(redis, keys),
    settings: new SettingsStore(redis, keys, logger),
    resets: new ResetStore(redis, keys),
    approvals: new ApprovalStore(redis, keys, logger),
    feedback: new FeedbackStore(redis, keys, logger),
  };
}
