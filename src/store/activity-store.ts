import type { Redis } from "ioredis";
import {
  type ConversationAddress,
  conversationKey,
  parseConversationKey,
} from "../core/conversation.ts";
import type { KeyScheme } from "./keys.ts";

/** How many conversations the recent list keeps, and how many turns each. */
export const RECENT_CONVERSATIONS = 200;
export const TURNS_KEPT = 10;

/** One finished turn as the console lists it: no text, only how it went. */
export interface TurnActivity {
  /** The turn's id: its answer's votes are found by it (unset in records written before votes were). */
  readonly turnId?: string;
  readonly at: number;
  readonly outcome: string;
  readonly ms: number;
  readonly steps: number;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly completionTokens: number;
}

export interface RecentConversation {
  readonly address: ConversationAddress;
  readonly key: string;
  readonly last: TurnActivity | undefined;
}

/**
 * What the operator console shows of recent work: conversations by their
 * last turn (one capped sorted set), and each one's last turns (a capped list
 * in the conversation's own slot). Written once per turn, after delivery;
 * a write that fails costs the console a line, never the turn.
 */
export class ActivityStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: KeyScheme,
  ) {}

  async record(address: ConversationAddress, turn: TurnActivity): Promise<void> {
    const recent = this.keys.recentConversations();
    const list = this.keys.conversationActivity(address);
    // Sent together (one round trip, two slots on a cluster), with no MULTI around each
    // add and its cap: a reader between them sees one entry over the cap, which the next
    // cap removes, and a transaction would cost four commands more per turn.
    await Promise.all([
      this.redis.zadd(recent, turn.at, conversationKey(address)),
      this.redis.zremrangebyrank(recent, 0, -RECENT_CONVERSATIONS - 1),
      this.redis.lpush(list, JSON.stringify(turn)),
      this.redis.ltrim(list, 0, TURNS_KEPT - 1),
    ]);
  }

  /** The conversations whose turns ended last, newest first. */
  async recent(limit = 50): Promise<RecentConversation[]> {
    const keys = await this.redis.zrevrange(this.keys.recentConversations(), 0, limit - 1);
    return Promise.all(
      keys.flatMap((key) => {
        const address = addressOf(key);
        if (!address) return [];
        return [this.turns(address, 1).then(([last]) => ({ address, key, last }))];
      }),
    );
  }

  /** One conversation's last turns, newest first. */
  async turns(address: ConversationAddress, limit = TURNS_KEPT): Promise<TurnActivity[]> {
    const raw = await this.redis.lrange(this.keys.conversationActivity(address), 0, limit - 1);
    return raw.flatMap((text) => {
      try {
        return [JSON.parse(text) as TurnActivity];
      } catch {
        return [];
      }
    });
  }
}

/** The address a conversation key names; undefined when it is not one. */
export function addressOf(key: string): ConversationAddress | undefined {
  return parseConversationKey(key);
}
