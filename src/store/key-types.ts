import type { SharedScope } from "../core/availability/scopes.ts";
import type { ConversationAddress } from "../core/conversation.ts";

/**
 * The scopes stored in Redis besides the conversation's own. `global` here is
 * what owners changed from chat; it overlays the config file's global layer.
 */
export type ScopeKind = SharedScope;

/** A workspace: a Slack team, a Discord guild, a Telegram chat. */
export interface WorkspaceRef {
  readonly platform: string;
  readonly workspace: string;
}

export interface ChannelRef extends WorkspaceRef {
  readonly channel: string;
}

/** One person in one workspace: the same person elsewhere has other notes and reminders. */
export interface PersonRef extends WorkspaceRef {
  readonly user: string;
}

/** What names one scope: a workspace, or a channel of one. A ConversationAddress is both. */
export type ScopeRef<S extends ScopeKind> = S extends "channel"
  ? ChannelRef
  : S extends "workspace"
    ? WorkspaceRef
    : Partial<WorkspaceRef>;

/** The keys of one conversation; all share the conversation's hash tag. */
export interface ConversationKeys {
  /** HASH: the conversation's intent, one field per decision. */
  readonly intent: string;
  /** LIST: the conversation's messages, one JSON string each, oldest first. */
  readonly history: string;
  /** STRING: how many messages compaction ever dropped from the head of `history`. */
  readonly historyTrimmed: string;
  /** STRING: the JSON checkpoint of the turn in progress (or the last one). */
  readonly checkpoint: string;
  /** STRING: the contract hash of the conversation's last turn. */
  readonly contract: string;
  /** HASH: what people chose in chat for this conversation (`model`, `queue`). */
  readonly settings: string;
  /** STRING: a `/new` waiting for the next turn boundary (`history` or `all`). */
  readonly reset: string;
  /** STRING: the token of the worker holding the conversation (its lease). */
  readonly lease: string;
  /**
   * HASH with a TTL: how many pickups in a row found the conversation's next
   * turn where the last one left it (`at`, `count`, the last pickup's
   * `token`, the messages it `took`): the poison-message count.
   */
  readonly pickups: string;
  /** LIST: the messages waiting for the conversation's next turn (JSON, oldest first). */
  readonly inbox: string;
  /** ZSET with a TTL: the platform event ids pushed to the inbox lately, by when, for dedupe. */
  readonly seen: string;
  /**
   * STRING with a TTL: a stop or interrupt signal for the turn in progress,
   * `<turn id>|<kind>`, so a turn resumed after a crash still sees it.
   */
  readonly control: string;
  /**
   * STRING with the day counters' TTL: the id of the last turn counted in the
   * conversation's usage, so a turn recorded again is not counted twice.
   */
  readonly usageTurn: string;
}

/** The keys of pairing and approvals; `user` is platform-qualified (`telegram:123`). */
export interface AccessKeys {
  /** STRING with the code's TTL: the requester (JSON), under the code's SHA-256. */
  readonly code: (hash: string) => string;
  /** STRING with the code's TTL: the SHA-256 of the requester's one live code. */
  readonly codeOf: (user: string) => string;
  /** ZSET: when the requester was last given codes, to limit how often. */
  readonly requests: (user: string) => string;
  /** HASH: user -> the pending request (JSON), for `/access list`; bounded, pruned on every write. */
  readonly pending: string;
  /** ZSET: user -> when their code expires (Redis's clock): the pending hash's order and expiry. */
  readonly pendingOrder: string;
  /** HASH: user -> who approved them and when (JSON). */
  readonly approved: string;
}

/** Whose message count a rate limit keeps. */
export type RateLimitRef =
  | { readonly kind: "user"; readonly platform: string; readonly user: string }
  | { readonly kind: "conversation"; readonly address: ConversationAddress }
  | { readonly kind: "workspace"; readonly platform: string; readonly workspace: string };
/** Whose token usage a counter holds. */
export type UsageOwner =
  | { readonly kind: "conversation"; readonly address: ConversationAddress }
  | { readonly kind: "workspace"; readonly ref: WorkspaceRef }
  /** A person, by platform-qualified id (`slack:U0123`). */
  | { readonly kind: "user"; readonly user: string };

/** Whose token budget a reservation holds: a workspace's or a person's (never a conversation's). */
export type ReservationOwner = Exclude<UsageOwner, { readonly kind: "conversation" }>;

/** The turns in flight against one owner's token budget, in the slot of the owner's usage counters. */
export interface ReservationKeys {
  /** ZSET: each admitted message's event id, scored by when its reservation expires (ms, Redis's clock). */
  readonly deadlines: string;
  /** HASH: each admitted message's event id -> the tokens its turn reserves. */
  readonly tokens: string;
}
