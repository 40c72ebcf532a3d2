import type { Redis } from "ioredis";
import type { InboundMessage } from "../core/agent/inbound.ts";
import type { KeyScheme, ReservationOwner } from "./keys.ts";
import { LuaScript, UNPACK_CHUNK } from "./lua.ts";
import { ADD_USAGE_LUA, type OwnedCounting } from "./usage-store.ts";

/**
 * Lua functions over one owner's reservations (KEYS: deadlines, tokens).
 * `prune` drops those whose deadline passed on Redis's clock, so a message
 * lost before its turn, or a worker that crashed for good, holds a budget
 * for at most its reservation's lifetime. `release` drops ids from the
 * `from`-th argument on. `held` sums what the live reservations hold, read
 * through the deadlines so a stray amount never counts.
 */
const RESERVATION_LUA = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function drop(deadlines, tokens, ids, from, to)
  for i = from, to, ${UNPACK_CHUNK} do
    local last = math.min(i + ${UNPACK_CHUNK} - 1, to)
    redis.call('ZREM', deadlines, unpack(ids, i, last))
    redis.call('HDEL', tokens, unpack(ids, i, last))
  end
end
local function prune(deadlines, tokens, now)
  local gone = redis.call('ZRANGEBYSCORE', deadlines, '-inf', now)
  if #gone > 0 then drop(deadlines, tokens, gone, 1, #gone) end
end
local function release(deadlines, tokens, args, from)
  if #args >= from then drop(deadlines, tokens, args, from, #args) end
end
local function held(deadlines, tokens)
  local ids = redis.call('ZRANGE', deadlines, 0, -1)
  local sum = 0
  for i = 1, #ids, ${UNPACK_CHUNK} do
    local amounts = redis.call('HMGET', tokens, unpack(ids, i, math.min(i + ${UNPACK_CHUNK} - 1, #ids)))
    for _, amount in ipairs(amounts) do sum = sum + (tonumber(amount) or 0) end
  end
  return sum
end
`;

/**
 * Admits a message against one owner's daily budget and reserves its
 * turn's estimate, in one script on Redis's clock, as the rate limits are:
 * of any number of messages arriving together on any number of ingress
 * processes, only those that find today's usage plus the reservations
 * under the budget get in (core/budget/reservation.ts `admitTurn` is the
 * same rule). An id that already holds a reservation is admitted again as
 * it was (a platform's retry of the same event). Both keys live as long as
 * their latest reservation.
 * KEYS: usage day, deadlines, tokens. ARGV: budget, estimate, ttl ms, id.
 * Returns {admitted 1/0, tokens used today, tokens reserved (this one included when admitted)}.
 */
const RESERVE = new LuaScript(`${RESERVATION_LUA}
if redis.replicate_commands then redis.replicate_commands() end
local now = now_ms()
prune(KEYS[2], KEYS[3], now)
local counted = redis.pcall('HMGET', KEYS[1], 'prompt', 'completion')
local used = 0
if not counted.err then used = (tonumber(counted[1]) or 0) + (tonumber(counted[2]) or 0) end
local reserved = held(KEYS[2], KEYS[3])
if redis.call('ZSCORE', KEYS[2], ARGV[4]) then return {1, used, reserved} end
if used + reserved >= tonumber(ARGV[1]) then return {0, used, reserved} end
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
redis.call('HSET', KEYS[3], ARGV[4], ARGV[2])
for i = 2, 3 do
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return {1, used, reserved + tonumber(ARGV[2])}
`);

// KEYS: deadlines, tokens. ARGV: ids.
const RELEASE = new LuaScript(`${RESERVATION_LUA}
release(KEYS[1], KEYS[2], ARGV, 1)
return 0
`);

// KEYS: usage day, usage month, deadlines, tokens. ARGV: the counting's six, then ids.
// The turn's real usage replaces its reservations in one step: the budget never sees both, nor neither.
const SETTLE = new LuaScript(`${ADD_USAGE_LUA}${RESERVATION_LUA}
add_usage(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
release(KEYS[3], KEYS[4], ARGV, 7)
return 1
`);

// KEYS: deadlines, tokens. Read-only apart from pruning what expired.
const HELD = new LuaScript(`${RESERVATION_LUA}
if redis.replicate_commands then redis.replicate_commands() end
prune(KEYS[1], KEYS[2], now_ms())
return held(KEYS[1], KEYS[2])
`);

/** What one reservation attempt found. */
export interface ReservationCheck {
  readonly admitted: boolean;
  /** Tokens counted today for the owner. */
  readonly used: number;
  /** Tokens the owner's turns in flight hold, this message's included when admitted. */
  readonly reserved: number;
}

/** The part of a message its reservations are found by. */
export type HeldMessage = Pick<InboundMessage, "platform" | "workspace" | "user" | "eventId">;

/**
 * Token-budget reservations: what turns admitted and not yet counted are
 * expected to cost, per workspace and per person, so that messages arriving
 * together are measured against each other, not only against what earlier
 * turns used. A message reserves at admission ({@link reserve}), and its
 * turn's end replaces the reservations of the messages it answered with its
 * real usage ({@link settle}); a message refused later, or a turn given up,
 * only releases them ({@link release}); anything else expires.
 *
 * @example
 * const check = await reservations.reserve(owner, dayKey, 200_000, 8_000, message.eventId, ttlMs);
 * if (!check.admitted) refuse();
 */
export class ReservationStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: KeyScheme,
  ) {}

  /** Reserves `estimate` for message `id` if `owner` is under `budget` (see {@link RESERVE}). */
  async reserve(
    owner: ReservationOwner,
    usageDayKey: string,
    budget: number,
    estimate: number,
    id: string,
    ttlMs: number,
  ): Promise<ReservationCheck> {
    const k = this.keys.reservations(owner);
    const reply = (await RESERVE.run(
      this.redis,
      [usageDayKey, k.deadlines, k.tokens],
      [budget, Math.max(1, Math.round(estimate)), Math.max(1, Math.round(ttlMs)), id],
    )) as number[];
    return {
      admitted: Number(reply[0]) === 1,
      used: Number(reply[1]),
      reserved: Number(reply[2]),
    };
  }

  /** Drops one owner's reservations of these message ids. */
  async releaseIds(owner: ReservationOwner, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const k = this.keys.reservations(owner);
    await RELEASE.run(this.redis, [k.deadlines, k.tokens], ids);
  }

  /** Drops every reservation of these messages (a turn given up): the workspace's and each sender's. */
  async release(messages: readonly HeldMessage[]): Promise<void> {
    await this.settle([], messages);
  }

  /**
   * A turn ended: each counting (the workspace's, the person's) is added in
   * the same script that drops that owner's reservations of the turn's
   * messages; owners the turn is not counted for (other senders of a
   * collected turn) only have theirs dropped. One script per owner, each in
   * its owner's slot, so it runs on a cluster too.
   */
  async settle(
    countings: readonly OwnedCounting[],
    messages: readonly HeldMessage[],
  ): Promise<void> {
    const held = this.#heldByOwner(messages);
    const runs: Promise<unknown>[] = [];
    for (const { owner, counting } of countings) {
      const k = this.keys.reservations(owner);
      const ids = held.get(k.deadlines)?.ids ?? [];
      held.delete(k.deadlines);
      runs.push(
        SETTLE.run(
          this.redis,
          [...counting.keys, k.deadlines, k.tokens],
          [...counting.args, ...ids],
        ),
      );
    }
    for (const { owner, ids } of held.values()) runs.push(this.releaseIds(owner, ids));
    await Promise.all(runs);
  }

  /** Each owner a message reserved against (its workspace, its sender), with the ids, by deadlines key. */
  #heldByOwner(messages: readonly HeldMessage[]) {
    const found = new Map<string, { owner: ReservationOwner; ids: string[] }>();
    const add = (owner: ReservationOwner, id: string) => {
      const key = this.keys.reservations(owner).deadlines;
      const entry = found.get(key) ?? { owner, ids: [] };
      entry.ids.push(id);
      found.set(key, entry);
    };
    for (const message of messages) {
      add({ kind: "workspace", ref: message }, message.eventId);
      if (message.user)
        add({ kind: "user", user: `${message.platform}:${message.user}` }, message.eventId);
    }
    return found;
  }

  /** What one owner's live reservations hold together (expired ones pruned first). */
  async reserved(owner: ReservationOwner): Promise<number> {
    const k = this.keys.reservations(owner);
    return Number(await HELD.run(this.redis, [k.deadlines, k.tokens]));
  }
}
