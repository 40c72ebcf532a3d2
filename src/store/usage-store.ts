import type { Redis } from "ioredis";
import type { ConversationAddress } from "../core/agent/inbound.ts";
import type { Usage } from "../core/agent/messages.ts";
import { dayPeriod, monthPeriod, NO_USAGE, type UsageCounts } from "../core/budget/usage.ts";
import type { KeyScheme, UsageOwner } from "./keys.ts";
import { LuaScript } from "./lua.ts";

/** Long enough to show yesterday and check today's budget; short enough to stay small. */
const DAY_TTL_S = 3 * 86_400;
/** Last month stays readable for a month. */
const MONTH_TTL_S = 62 * 86_400;

// KEYS: day, month[, guard]. ARGV: day ttl, month ttl, prompt, cached, completion, cost[, turn id].
// Adds one turn's usage to a day's and a month's counters. With a guard key (the
// conversation's), a turn already recorded is not counted again; returns 0 then.
// A counter gets its TTL when its period's first turn creates it (`turns` comes back 1):
// a day's lives three days from its first turn, a month's 62, so the TTL is set once
// per period, not on every turn. Zero amounts change nothing and are not sent.
const ADD = new LuaScript(`
if KEYS[3] and redis.call('SET', KEYS[3], ARGV[7], 'EX', ARGV[1], 'GET') == ARGV[7] then
  return 0
end
local fields = {'prompt', 'cached', 'completion', 'cost'}
for i = 1, 2 do
  if redis.call('HINCRBY', KEYS[i], 'turns', 1) == 1 then
    redis.call('EXPIRE', KEYS[i], ARGV[i])
  end
  for f = 1, 4 do
    if ARGV[f + 2] ~= '0' then redis.call('HINCRBY', KEYS[i], fields[f], ARGV[f + 2]) end
  end
end
return 1
`);

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
 * once even when its worker is replaced before it finishes.
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
    const add = (owner: UsageOwner, guard?: string) =>
      ADD.run(
        this.redis,
        [
          this.keys.usage(owner, dayPeriod(now)),
          this.keys.usage(owner, monthPeriod(now)),
          ...(guard ? [guard] : []),
        ],
        [
          DAY_TTL_S,
          MONTH_TTL_S,
          whole(usage.promptTokens),
          whole(usage.cachedTokens),
          whole(usage.completionTokens),
          whole(costMicros),
          ...(guard ? [turnId] : []),
        ],
      );
    const { address, user } = subject;
    const guard = `${this.keys.conversationTag(address)}:usage:turn`;
    if ((await add({ kind: "conversation", address }, guard)) !== 1) return false;
    await Promise.all([
      add({ kind: "workspace", ref: address }),
      ...(user ? [add({ kind: "user", user })] : []),
    ]);
    return true;
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
