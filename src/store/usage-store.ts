import type { Redis } from "ioredis";
import type { Usage } from "../core/agent/messages.ts";
import { dayPeriod, monthPeriod, NO_USAGE, type UsageCounts } from "../core/budget/usage.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import type { KeyScheme, ReservationOwner, UsageOwner } from "./keys.ts";
import { LuaScript } from "./lua.ts";

/** Long enough to show yesterday and check today's budget; short enough to stay small. */
const DAY_TTL_S = 3 * 86_400;
/** Last month stays readable for a month. */
const MONTH_TTL_S = 62 * 86_400;

/**
 * Adds one turn's usage to an owner's day and month counters (the Lua
 * function `add_usage` of `lua/includes/add-usage.lua`, which the inbox's
 * turn-ending script and the reservations' settling include too). A counter
 * gets its TTL when its period's first turn creates it: a day's lives three
 * days from its first turn, a month's 62. Zero amounts change nothing.
 */
const ADD = LuaScript.file("usage-add-2");

/**
 * The same for the conversation's counters, guarded: the guard key remembers
 * the last turn counted, so a turn already recorded is not counted again.
 */
const ADD_ONCE = LuaScript.file("usage-add-once-3");

/** One owner's counting, as `add_usage` (lua/includes/add-usage.lua) takes it: its two keys, then its six arguments. */
export interface UsageCounting {
  readonly keys: readonly [day: string, month: string];
  readonly args: readonly (string | number)[];
}

/** A workspace's or a person's counting of one turn. */
export interface OwnedCounting {
  readonly owner: ReservationOwner;
  readonly counting: UsageCounting;
}

/** Who a turn's usage is counted for. */
export interface UsageSubject {
  readonly address: ConversationAddress;
  /** The person, platform-qualified (`telegram:42`); undefined for no one in particular. */
  readonly user: string | undefined;
}

/**
 * Token usage per conversation, per person and per workspace, per UTC day
 * and month, from what the provider reported. Each owner's counters are one
 * script (atomic, with TTLs, so nothing grows without bound); the
 * conversation's goes first and remembers the turn, so a turn is counted
 * once even when its worker is replaced before it finishes. A turn worker
 * counts the conversation's part inside the script that ends the turn
 * instead ({@link UsageStore.conversationCounting}), then the rest.
 *
 * @example
 * await usage.record({ address, user: "slack:U1" }, turnId, result.usage, 0, Date.now());
 * const today = await usage.read({ kind: "workspace", ref: address }, dayPeriod(Date.now()));
 */
export class UsageStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: KeyScheme,
  ) {}

  async record(
    subject: UsageSubject,
    turnId: string,
    usage: Usage,
    costMicros: number,
    now: number,
  ): Promise<boolean> {
    const { address } = subject;
    const guard = this.keys.conversation(address).usageTurn;
    const own = this.counting({ kind: "conversation", address }, usage, costMicros, now);
    const counted = await ADD_ONCE.run(this.redis, [...own.keys, guard], [...own.args, turnId]);
    if (counted !== 1) return false;
    await this.recordShared(subject, usage, costMicros, now);
    return true;
  }

  /**
   * The conversation's part of a turn's counting, for a script of the
   * conversation's slot that ends the turn (the inbox's finish): counted in
   * the step that ends the turn, so once, with no guard of its own.
   */
  conversationCounting(
    address: ConversationAddress,
    usage: Usage,
    costMicros: number,
    now: number,
  ): UsageCounting {
    return this.counting({ kind: "conversation", address }, usage, costMicros, now);
  }

  /**
   * The workspace's and the person's counters (other slots than the
   * conversation's), for a turn whose conversation counters were just
   * counted: the two scripts go out together.
   */
  async recordShared(
    subject: UsageSubject,
    usage: Usage,
    costMicros: number,
    now: number,
  ): Promise<void> {
    await Promise.all(
      this.sharedCountings(subject, usage, costMicros, now).map(({ counting }) =>
        ADD.run(this.redis, counting.keys, counting.args),
      ),
    );
  }

  /**
   * The workspace's and the person's countings of a turn, each with its
   * owner, for a script that counts them in the same step as it releases
   * the turn's budget reservations (see ReservationStore.settle).
   */
  sharedCountings(
    subject: UsageSubject,
    usage: Usage,
    costMicros: number,
    now: number,
  ): readonly OwnedCounting[] {
    const { address, user } = subject;
    const owners: ReservationOwner[] = [
      { kind: "workspace", ref: address },
      ...(user ? [{ kind: "user", user } as const] : []),
    ];
    return owners.map((owner) => ({
      owner,
      counting: this.counting(owner, usage, costMicros, now),
    }));
  }

  private counting(
    owner: UsageOwner,
    usage: Usage,
    costMicros: number,
    now: number,
  ): UsageCounting {
    return {
      keys: [this.keys.usage(owner, dayPeriod(now)), this.keys.usage(owner, monthPeriod(now))],
      args: [
        DAY_TTL_S,
        MONTH_TTL_S,
        whole(usage.promptTokens),
        whole(usage.cachedTokens),
        whole(usage.completionTokens),
        whole(costMicros),
      ],
    };
  }

  /** One owner's counters for one period (`dayPeriod(now)`, `monthPeriod(now)`). */
  async read(owner: UsageOwner, period: string): Promise<UsageCounts> {
    let hash: Record<string, string>;
    try {
      hash = await this.redis.hgetall(this.keys.usage(owner, period));
    } catch (error) {
      if (!String((error as Error)?.message).startsWith("WRONGTYPE")) throw error;
      return NO_USAGE;
    }
    const n = (field: string) => {
      const value = Number(hash[field] ?? 0);
      return Number.isFinite(value) && value > 0 ? value : 0;
    };
    return {
      prompt: n("prompt"),
      cached: n("cached"),
      completion: n("completion"),
      turns: n("turns"),
      costMicros: n("cost"),
    };
  }
}

/** A provider's odd report (negative, fractional, NaN) counts as what it can be: a whole number, at least 0. */
function whole(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
}
