import type { Redis } from "ioredis";
import type { ConversationAddress } from "../core/agent/inbound.ts";
import type { Usage } from "../core/agent/messages.ts";
import { dayPeriod, monthPeriod, NO_USAGE, type UsageCounts } from "../core/budget/usage.ts";
import type { KeyScheme, ReservationOwner, UsageOwner } from "./keys.ts";
import { LuaScript } from "./lua.ts";

/** Long enough to show yesterday and check today's budget; short enough to stay small. */
const DAY_TTL_S = 3 * 86_400;
/** Last month stays readable for a month. */
const MONTH_TTL_S = 62 * 86_400;

/**
 * Adds one turn's usage to a day's and a month's counters (a Lua function, so
 * the inbox's turn-ending script can count a conversation's turn in the same
 * step that ends it). A counter gets its TTL when its period's first turn
 * creates it (`turns` comes back 1): a day's lives three days from its first
 * turn, a month's 62, so the TTL is set once per period, not on every turn.
 * Zero amounts change nothing and are not sent.
 * Arguments: day key, month key, day ttl, month ttl, prompt, cached, completion, cost.
 */
export const ADD_USAGE_LUA = `
local function add_usage(day, month, dayTtl, monthTtl, prompt, cached, completion, cost)
  local keys = {day, month}
  local ttls = {dayTtl, monthTtl}
  local amounts = {prompt = prompt, cached = cached, completion = completion, cost = cost}
  for i = 1, 2 do
    if redis.call('HINCRBY', keys[i], 'turns', 1) == 1 then redis.call('EXPIRE', keys[i], ttls[i]) end
    for _, field in ipairs({'prompt', 'cached', 'completion', 'cost'}) do
      if amounts[field] ~= '0' then redis.call('HINCRBY', keys[i], field, amounts[field]) end
    end
  end
end
`;

// KEYS: day, month[, guard]. ARGV: day ttl, month ttl, prompt, cached, completion, cost[, turn id].
// With a guard key (the conversation's), a turn already recorded is not counted again; returns 0 then.
const ADD = new LuaScript(`${ADD_USAGE_LUA}
if KEYS[3] and redis.call('SET', KEYS[3], ARGV[7], 'EX', ARGV[1], 'GET') == ARGV[7] then
  return 0
end
add_usage(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return 1
`);

/** One owner's counting, as {@link ADD_USAGE_LUA} takes it: its two keys, then its six arguments. */
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
    const guard = `${this.keys.conversationTag(address)}:usage:turn`;
    const own = this.counting({ kind: "conversation", address }, usage, costMicros, now);
    const counted = await ADD.run(this.redis, [...own.keys, guard], [...own.args, turnId]);
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
