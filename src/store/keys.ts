import { type ConversationAddress, conversationKey } from "../core/agent/inbound.ts";
import { StoreInputError } from "./errors.ts";

/** The prefix every Switchyard key starts with unless configured otherwise. */
export const DEFAULT_PREFIX = "sy";

/**
 * The scopes stored in Redis besides the conversation's own. `global` here is
 * what owners changed from chat; it overlays the config file's global layer.
 */
export type ScopeKind = "workspace" | "channel" | "global";

/** A workspace: a Slack team, a Discord guild, a Telegram chat. */
export interface WorkspaceRef {
  readonly platform: string;
  readonly workspace: string;
}

export interface ChannelRef extends WorkspaceRef {
  readonly channel: string;
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
}

/**
 * Where everything lives in Redis. Keys are grouped by a Redis Cluster hash
 * tag (the part in braces): every key of one conversation hashes to the same
 * slot, so a MULTI or a Lua script may touch several of them atomically, on a
 * single Redis or a cluster alike.
 *
 * @example
 * const keys = new KeyScheme("sy");
 * keys.conversation(address).intent; // "sy:{conv:slack:T1:C1:1700000000.1}:intent"
 * `${keys.conversationTag(address)}:inbox`; // a worker's key in the same slot
 * keys.scope("channel", address); // "sy:{ws:slack:T1}:channel:C1:scope"
 */
export class KeyScheme {
  readonly prefix: string;

  constructor(prefix: string = DEFAULT_PREFIX) {
    this.prefix = checkPrefix(prefix);
  }

  /** The start of every key of one conversation, hash tag included. Add `:<name>` for a new key. */
  conversationTag(address: ConversationAddress): string {
    return `${this.prefix}:{conv:${conversationKey(address)}}`;
  }

  conversation(address: ConversationAddress): ConversationKeys {
    const tag = this.conversationTag(address);
    return {
      intent: `${tag}:intent`,
      history: `${tag}:history`,
      historyTrimmed: `${tag}:history:trimmed`,
      checkpoint: `${tag}:checkpoint`,
      contract: `${tag}:contract`,
    };
  }

  /**
   * The HASH holding one scope's decisions. A workspace's key and its
   * channels' keys share the workspace's hash tag, so a turn reads both in
   * one script on a single Redis or a cluster alike.
   */
  scope<S extends ScopeKind>(kind: S, where: ScopeRef<S>): string {
    if (kind === "global") return `${this.prefix}:{scope:global}`;
    const ref = where as WorkspaceRef;
    const tag = `${this.prefix}:{ws:${[ref.platform, ref.workspace].map(encodeURIComponent).join(":")}}`;
    if (kind === "workspace") return `${tag}:scope`;
    const channel = (where as ChannelRef).channel;
    if (typeof channel !== "string") {
      throw new StoreInputError(
        "A channel scope needs a channel: pass { platform, workspace, channel } (a ConversationAddress works).",
      );
    }
    return `${tag}:channel:${encodeURIComponent(channel)}:scope`;
  }
}

/** A prefix with a brace would move the hash tag and split a conversation across slots. */
function checkPrefix(prefix: string): string {
  if (prefix.length === 0 || /[{}\s]/.test(prefix)) {
    throw new StoreInputError(
      `Key prefix ${JSON.stringify(prefix)} cannot be used: it must be non-empty, without braces or spaces (for example "sy" or "sy-staging").`,
    );
  }
  return prefix;
}
