import { createHash } from "node:crypto";
import { type ConversationAddress, conversationKey } from "../core/conversation.ts";
import {
  type ChannelStateKeys,
  type CommandRegistrationKeys,
  channelStateKeys,
} from "./channel-keys.ts";
import { StoreInputError } from "./errors.ts";
import type {
  AccessKeys,
  ChannelRef,
  ConversationKeys,
  PersonRef,
  RateLimitRef,
  ReservationKeys,
  ReservationOwner,
  ScopeKind,
  ScopeRef,
  UsageOwner,
  WorkspaceRef,
} from "./key-types.ts";
import {
  legacyQueuePrefix,
  queueLayoutsKey,
  reminderQueuePrefix,
  turnQueuePrefix,
  turnWaitListKey,
} from "./queue-keys.ts";
import {
  type HookKeys,
  hookKeys,
  type NoteKeys,
  noteKeys,
  type ReminderKeys,
  reminderKeys,
  type ScheduleKeys,
  scheduleKeys,
} from "./tool-keys.ts";

/** The prefix every Switchyard key starts with unless configured otherwise. */
export const DEFAULT_PREFIX = "sy";

export type { ChannelStateKeys, CommandRegistrationKeys } from "./channel-keys.ts";
export type * from "./key-types.ts";
export type { HookKeys, NoteKeys, ReminderKeys, ScheduleKeys } from "./tool-keys.ts";

/**
 * Where everything lives in Redis. Keys are grouped by a Redis Cluster hash
 * tag (the part in braces): every key of one conversation hashes to the same
 * slot, so a MULTI or a Lua script may touch several of them atomically, on a
 * single Redis or a cluster alike.
 *
 * @example
 * const keys = new KeyScheme("sy");
 * keys.conversation(address).intent; // "sy:{conv:slack:T1:C1:1700000000.1}:intent"
 * keys.conversation(address).inbox; // "sy:{conv:slack:T1:C1:1700000000.1}:inbox"
 * keys.scope("channel", address); // "sy:{ws:slack:T1}:channel:C1:scope"
 * keys.turnQueuePrefix(0, 4); // "sy:{q:turns:0of4:5}": BullMQ's prefix for shard 0 of 4
 * keys.channelState("telegram", "123").offset; // "sy:telegram:123:offset"
 */
export class KeyScheme {
  readonly prefix: string;

  constructor(prefix: string = DEFAULT_PREFIX) {
    this.prefix = checkPrefix(prefix);
  }

  /**
   * The start of every key of one conversation, hash tag included. A new key
   * of a conversation gets a field of {@link conversation} or a method here,
   * not a `:<name>` added where it is used.
   */
  conversationTag(address: ConversationAddress): string {
    return `${this.prefix}:{conv:${conversationKey(address)}}`;
  }

  /**
   * STRING: what a file a person sent came to (its {@link AttachmentContent}
   * as JSON), keyed by the platform's file id, in the conversation's slot. It
   * lives for `attachments.cache_seconds`: long enough for a turn resumed
   * after a crash to find it, not a store of people's files.
   * e.g. "sy:{conv:telegram:5:5:5}:attachment:<sha1 of the file id>".
   */
  attachment(address: ConversationAddress, fileRef: string): string {
    // Hashed: a file id may be a path or a URL, and a key should not carry either.
    const id = createHash("sha1").update(fileRef).digest("hex");
    return `${this.conversationTag(address)}:attachment:${id}`;
  }

  /**
   * HASH: a long document's whole text (`text`) and page size (`page`),
   * kept for `read_attachment` for `attachments.keep_seconds`, under the
   * document's short id (see `documentId`), in the conversation's slot.
   * e.g. "sy:{conv:slack:T1:D1:D1}:document:3f2a9c01b7e4".
   */
  document(address: ConversationAddress, documentId: string): string {
    return `${this.conversationTag(address)}:document:${documentId}`;
  }

  /**
   * STRING, TTL `attachments.cache_seconds`: the bytes of a file a tool made for the answer, by
   * its ref, so a resumed turn still sends it. e.g. "sy:{conv:slack:T1:C1:C1}:tool-file:9c01b7e4".
   */
  toolFile(address: ConversationAddress, ref: string): string {
    return `${this.conversationTag(address)}:tool-file:${ref}`;
  }

  /**
   * HASH: the decision on one approval request (`verdict`, `user`, `name`,
   * `at`), the calls claimed before they ran (`claim:<call id>`) and whether
   * the request was edited to its outcome (`edited`), in the conversation's
   * slot, so one script checks the checkpoint and records the first decision.
   * e.g. "sy:{conv:slack:T1:C1:C1}:approval:k3x9q2m7p1ab".
   */
  approval(address: ConversationAddress, id: string): string {
    return `${this.conversationTag(address)}:approval:${id}`;
  }

  /**
   * STRING with a TTL: which conversation an approval request belongs to
   * (its address as JSON), so a click that carries only the request's id
   * finds it. e.g. "sy:{approval:k3x9q2m7p1ab}".
   */
  approvalIndex(id: string): string {
    return `${this.prefix}:{approval:${id}}`;
  }

  /**
   * HASH with a TTL: one rated answer (see feedback-store.ts): the turn it
   * came from (`turn`, `contract`, `model`, `prompt`, `cached`,
   * `completion`, `at`, `trace`) and each person's vote (`vote:<voter>`,
   * `voted:<voter>`, `name:<voter>`) and "what was wrong" (`why:<voter>`),
   * in the conversation's slot. e.g. "sy:{conv:slack:T1:C1:C1}:feedback:<turn id>".
   */
  feedback(address: ConversationAddress, turnId: string): string {
    return `${this.conversationTag(address)}:feedback:${turnId}`;
  }

  /**
   * STRING with a TTL: which conversation and turn an answer's feedback id
   * (`feedbackId`, src/ports/feedback.ts) rates, as JSON, so a click that carries only the
   * id finds the answer. e.g. "sy:{feedback:k3x9q2m7p1ab}".
   */
  feedbackIndex(id: string): string {
    return `${this.prefix}:{feedback:${id}}`;
  }

  /** STRING with a TTL: the feedback id of the conversation's last rated answer, for a typed `/good` or `/bad`. */
  feedbackLast(address: ConversationAddress): string {
    return `${this.conversationTag(address)}:feedback-last`;
  }

  /**
   * STRING with a short TTL: the turn id whose 👎 this person was asked
   * "what was wrong?" about; their next message in the conversation is kept
   * with the vote instead of going to the model (see feedback-store.ts).
   */
  feedbackWhy(address: ConversationAddress, voter: string): string {
    return `${this.conversationTag(address)}:feedback-why:${encodeURIComponent(voter)}`;
  }

  /** The keys of one conversation, all in its slot (see {@link ConversationKeys}). */
  conversation(address: ConversationAddress): ConversationKeys {
    const tag = this.conversationTag(address);
    return {
      intent: `${tag}:intent`,
      history: `${tag}:history`,
      historyTrimmed: `${tag}:history:trimmed`,
      checkpoint: `${tag}:checkpoint`,
      contract: `${tag}:contract`,
      settings: `${tag}:settings`,
      reset: `${tag}:reset`,
      lease: `${tag}:lease`,
      pickups: `${tag}:pickups`,
      inbox: `${tag}:inbox`,
      seen: `${tag}:seen`,
      control: `${tag}:control`,
      usageTurn: `${tag}:usage:turn`,
    };
  }

  /**
   * HASH with a TTL: what one turn's streamed answer was, as far as a crash
   * let it be recorded (`ref`, the platform's message; `text`, what it last
   * showed), in the conversation's slot, so a resumed turn edits that message
   * instead of posting a second one.
   * e.g. "sy:{conv:slack:T1:C1:C1}:stream:<turn id>".
   */
  turnStream(address: ConversationAddress, turnId: string): string {
    return `${this.conversationTag(address)}:stream:${turnId}`;
  }

  /**
   * HASH with a TTL: one turn's status line, where a platform shows a
   * running tool as a message of its own (Discord): `key`, the idempotency
   * key it is posted under, written before the post; `ref`, the message,
   * once posted. A resumed turn deletes the line its crashed run left.
   * e.g. "sy:{conv:discord:G1:C1:C1}:status:<turn id>".
   */
  turnStatusLine(address: ConversationAddress, turnId: string): string {
    return `${this.conversationTag(address)}:status:${turnId}`;
  }

  /**
   * The HASH of token usage for one owner and one period (`d:2026-12-01`,
   * `m:2026-12`): a conversation's counters share its slot, a workspace's
   * its scopes' slot, a person's a slot of their own.
   */
  usage(owner: UsageOwner, period: string): string {
    switch (owner.kind) {
      case "conversation":
        return `${this.conversationTag(owner.address)}:usage:${period}`;
      case "workspace":
        return `${this.#workspaceTag(owner.ref)}:usage:${period}`;
      case "user":
        return `${this.#usageUserTag(owner.user)}:usage:${period}`;
    }
  }

  /**
   * The token-budget reservations of turns in flight for a workspace or a
   * person (see {@link ReservationKeys}), in the slot of the same owner's
   * usage counters: one script reads what was used, what is held, and
   * reserves, atomically on a single Redis and a cluster alike.
   * e.g. "sy:{ws:slack:T1}:budget:reserved" and "sy:{ws:slack:T1}:budget:reserved:tokens".
   */
  reservations(owner: ReservationOwner): ReservationKeys {
    const tag =
      owner.kind === "workspace" ? this.#workspaceTag(owner.ref) : this.#usageUserTag(owner.user);
    return { deadlines: `${tag}:budget:reserved`, tokens: `${tag}:budget:reserved:tokens` };
  }

  /** A person's usage counters' tag, by platform-qualified id (`slack:U0123`). */
  #usageUserTag(user: string): string {
    return `${this.prefix}:{user:${encodeURIComponent(user)}}`;
  }

  /** The HASH of what admins chose in chat for a whole channel (`model`, `queue`). */
  channelSettings(where: ChannelRef): string {
    return `${this.#workspaceTag(where)}:channel:${encodeURIComponent(where.channel)}:settings`;
  }

  /** The HASH of what admins chose in chat for a whole workspace (`agent`), in the workspace's slot. */
  workspaceSettings(where: WorkspaceRef): string {
    return `${this.#workspaceTag(where)}:settings`;
  }

  #workspaceTag(ref: WorkspaceRef): string {
    return `${this.prefix}:{ws:${[ref.platform, ref.workspace].map(encodeURIComponent).join(":")}}`;
  }

  /**
   * The HASH holding one scope's decisions. A workspace's key and its
   * channels' keys share the workspace's hash tag, so a turn reads both in
   * one script on a single Redis or a cluster alike.
   */
  scope<S extends ScopeKind>(kind: S, where: ScopeRef<S>): string {
    if (kind === "global") return `${this.prefix}:{scope:global}`;
    const tag = this.#workspaceTag(where as WorkspaceRef);
    if (kind === "workspace") return `${tag}:scope`;
    const channel = (where as ChannelRef).channel;
    if (typeof channel !== "string") {
      throw new StoreInputError(
        "A channel scope needs a channel: pass { platform, workspace, channel } (a ConversationAddress works).",
      );
    }
    return `${tag}:channel:${encodeURIComponent(channel)}:scope`;
  }

  /** BullMQ's prefix for shard `shard` of `shards` of the conversation queue (see {@link turnQueuePrefix}). */
  turnQueuePrefix(shard: number, shards: number): string {
    return turnQueuePrefix(this.prefix, shard, shards);
  }

  /** BullMQ's list of the jobs waiting in that shard (see {@link turnWaitListKey}). */
  turnWaitList(shard: number, shards: number): string {
    return turnWaitListKey(this.prefix, shard, shards);
  }

  /**
   * Who was let in and who is waiting: pairing codes (by the SHA-256 of the
   * code, never the code), the one live code of each requester, the pending
   * requests and the approved people. One slot, so pairing and approving
   * are single scripts; access changes are rare, so the slot stays cool.
   */
  access(): AccessKeys {
    const tag = `${this.prefix}:{access}`;
    return {
      code: (hash) => `${tag}:pairing:code:${hash}`,
      codeOf: (user) => `${tag}:pairing:by:${encodeURIComponent(user)}`,
      requests: (user) => `${tag}:pairing:requests:${encodeURIComponent(user)}`,
      pending: `${tag}:pairing:pending`,
      pendingOrder: `${tag}:pairing:pending:order`,
      approved: `${tag}:approved`,
    };
  }

  /**
   * The sliding-window ZSET of one rate limit: a person's in a slot of their
   * own (`platform:user`), a conversation's in the conversation's slot, a
   * workspace's in the workspace's. The window is part of the key, so two
   * scopes with different windows never share a count.
   */
  rateLimit(limit: RateLimitRef, windowMs: number): string {
    const suffix = `limit:${Math.trunc(windowMs)}`;
    if (limit.kind === "user") return `${this.senderTag(limit.platform, limit.user)}:${suffix}`;
    if (limit.kind === "conversation") return `${this.conversationTag(limit.address)}:${suffix}`;
    const ws = [limit.platform, limit.workspace].map(encodeURIComponent).join(":");
    return `${this.prefix}:{ws:${ws}}:${suffix}`;
  }

  /** STRING with a TTL: this person was told why a message of theirs was refused, for `reason`. */
  refusalNotice(platform: string, user: string, reason: string): string {
    return `${this.senderTag(platform, user)}:notice:${encodeURIComponent(reason)}`;
  }

  /** The start of one person's keys (`platform:user`), hash tag included. */
  senderTag(platform: string, user: string): string {
    return `${this.prefix}:{user:${[platform, user].map(encodeURIComponent).join(":")}}`;
  }

  /** ZSET: conversation keys by when their last turn ended (ms), capped; the console's list. */
  recentConversations(): string {
    return `${this.prefix}:{console:recent}`;
  }

  /** LIST: the last turns of one conversation (JSON, newest first, capped), for the console. */
  conversationActivity(address: ConversationAddress): string {
    return `${this.conversationTag(address)}:activity`;
  }

  /**
   * One platform installation's ingress state (events taken, the poll
   * offset), e.g. `channelState("slack", "T0123").event("cmd:1")` is
   * "sy:slack:T0123:event:cmd:1". See {@link ChannelStateKeys}.
   */
  channelState(platform: string, installation: string): ChannelStateKeys {
    return channelStateKeys(`${this.prefix}:${platform}:${installation}`);
  }

  /**
   * STRING with a TTL: the bot is part of this thread of a workspace's
   * channel (Slack: `thread` is the parent's ts), in the workspace's slot.
   */
  thread(where: ChannelRef, thread: string): string {
    return `${this.#workspaceTag(where)}:thread:${where.channel}:${thread}`;
  }

  /**
   * HASH with a TTL: one thread of Slack's assistant pane (a thread of the
   * bot's DM with a person): the channel they are looking at, and whether
   * the thread has its title. In the workspace's slot.
   */
  assistantThread(where: ChannelRef, thread: string): string {
    return `${this.#workspaceTag(where)}:assistant:${encodeURIComponent(where.channel)}:${encodeURIComponent(thread)}`;
  }

  /** STRING with a TTL: the bot is part of this thread, by a platform-wide thread id (Discord). */
  platformThread(platform: string, thread: string): string {
    return `${this.prefix}:${platform}:thread:${thread}`;
  }

  /** Where one application's commands are registered (Discord). */
  commandRegistration(platform: string, applicationId: string): CommandRegistrationKeys {
    const base = `${this.prefix}:${platform}:commands:${applicationId}`;
    return { guilds: `${base}:guilds`, global: `${base}:global` };
  }

  /**
   * STRING with a TTL: the platform message one part of a delivery became
   * (or that it is being sent), by the delivery's idempotency key, for a
   * platform without a nonce of its own (Telegram).
   */
  sentMessage(platform: string, idempotencyKey: string, part: number): string {
    return `${this.prefix}:${platform}:sent:${idempotencyKey}:${part}`;
  }

  /**
   * HASH with a TTL: one bot's send bucket (tokens left, when counted), which
   * every process sending for the bot draws from (send-bucket-take-1.lua).
   * `installation` is the bot's public id, never its token; `bucket` names
   * one limit of the bot (Telegram's free pace and its paid broadcast). A
   * slot of its own: one key, touched by one script at a time.
   */
  sendBucket(platform: string, installation: string, bucket: string): string {
    const tag = [platform, installation].map(encodeURIComponent).join(":");
    return `${this.prefix}:{pace:${tag}}:${encodeURIComponent(bucket)}`;
  }

  /** The console's outbox: its STREAM of posts, and each post's STRING by idempotency key. */
  outbox(): { readonly stream: string; readonly sent: (idempotencyKey: string) => string } {
    const tag = `${this.prefix}:{outbox}`;
    return { stream: `${tag}:stream`, sent: (key) => `${tag}:sent:${key}` };
  }

  /** One person's notes in one workspace (the memory tools). See {@link NoteKeys}. */
  notes(owner: PersonRef): NoteKeys {
    return noteKeys(this.prefix, owner);
  }

  /** The reminder ids and each person's pending reminders. See {@link ReminderKeys}. */
  reminders(): ReminderKeys {
    return reminderKeys(this.prefix);
  }

  /** BullMQ's prefix for the reminder queue: one queue, one slot of its own. */
  reminderQueuePrefix(): string {
    return reminderQueuePrefix(this.prefix);
  }

  /** Every schedule's record and the id set. See {@link ScheduleKeys}. */
  schedules(): ScheduleKeys {
    return scheduleKeys(this.prefix);
  }

  /** The deliveries hooks have taken, for refusing replays. See {@link HookKeys}. */
  hooks(): HookKeys {
    return hookKeys(this.prefix);
  }

  /** The HASH of the shard counts in use (see {@link queueLayoutsKey}). */
  queueLayouts(): string {
    return queueLayoutsKey(this.prefix);
  }

  /** BullMQ's prefix before queues were sharded, `<prefix>:bull` (see {@link legacyQueuePrefix}). */
  legacyQueuePrefix(): string {
    return legacyQueuePrefix(this.prefix);
  }

  /** The pub/sub channel turn signals are published on, for every worker: "sy:turn-signals". */
  turnSignalChannel(): string {
    return `${this.prefix}:turn-signals`;
  }
}

/**
 * Redis hashes a key by its first `{...}`: a brace in the prefix would become
 * the hash tag of every key, putting all of them in one slot (one master of
 * a cluster) or splitting a conversation's keys from each other. Switchyard
 * places the tags itself, so the same prefix works on one Redis and on a
 * cluster.
 */
function checkPrefix(prefix: string): string {
  if (prefix.length === 0 || /[{}\s]/.test(prefix)) {
    throw new StoreInputError(
      `Key prefix ${JSON.stringify(prefix)} cannot be used: it must be non-empty, without braces or spaces (for example "sy" or "sy-staging"). Do not add a {hash tag} for a Redis Cluster: Switchyard tags its keys itself, a conversation's in one slot and each queue shard in its own.`,
    );
  }
  return prefix;
}
