import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { KeyScheme } from "./keys.ts";
import { LuaScript, UNPACK_CHUNK } from "./lua.ts";

/** A person waiting for an owner's approval. `user` is platform-qualified (`telegram:123`). */
export interface PairingRequest {
  readonly user: string;
  readonly name?: string;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
}

/** A person an owner let in by pairing. */
export interface Approval {
  readonly user: string;
  readonly name?: string;
  /** The owner who approved, platform-qualified, or `cli` from a shell. */
  readonly by: string;
  readonly at: number;
}

/** How a code is kept: its SHA-256, so a Redis dump shows no usable code. */
export function pairingCodeHash(code: string): string {
  return createHash("sha256").update(code).digest("hex");
}

/**
 * How many strangers `/access list` keeps waiting at most. Past it the
 * oldest request leaves the list, not the newcomer: a flood of strangers
 * cannot lock out the one person the owner expects, and a dropped
 * request's code still works, so whoever hands an owner their code is let
 * in either way. The list is a view for owners, not the codes themselves.
 */
export const MAX_PENDING_REQUESTS = 1000;

/**
 * Lua that drops the pending requests whose codes have expired, on Redis's
 * clock, so processes whose clocks disagree prune the same entries. Expects
 * `now`; `pending` and `order` name the script's KEYS holding the pending
 * hash and its order (user -> expiry).
 */
function pruneExpired(pending: string, order: string): string {
  return `
local expired = redis.call('ZRANGEBYSCORE', ${order}, '-inf', now)
for i = 1, #expired, ${UNPACK_CHUNK} do
  redis.call('HDEL', ${pending}, unpack(expired, i, math.min(i + ${UNPACK_CHUNK - 1}, #expired)))
end
redis.call('ZREMRANGEBYSCORE', ${order}, '-inf', now)
`;
}

const REDIS_NOW = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Gives a requester a new code, in place of the one they had (whose hash
 * `ARGV[1]` says, checked so two ingress processes cannot both issue one):
 * at most one live code per requester. In the same step it prunes expired
 * requests and keeps at most `ARGV[6]` waiting, dropping the oldest, so
 * the list stays bounded however many strangers write.
 * KEYS: codeOf, new code, old code (or the new one again), pending, pending order.
 */
const ISSUE = new LuaScript(`${REDIS_NOW}
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
if KEYS[3] ~= KEYS[2] then redis.call('DEL', KEYS[3]) end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[5])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[5])
-- A hash without its order was written before the order existed: start it afresh.
if redis.call('EXISTS', KEYS[5]) == 0 then redis.call('DEL', KEYS[4]) end
${pruneExpired("KEYS[4]", "KEYS[5]")}
redis.call('HSET', KEYS[4], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[5], now + tonumber(ARGV[5]), ARGV[4])
local over = redis.call('ZCARD', KEYS[5]) - tonumber(ARGV[6])
if over > 0 then
  local oldest = redis.call('ZRANGE', KEYS[5], 0, over - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[5], 0, over - 1)
  for i = 1, #oldest, ${UNPACK_CHUNK} do
    redis.call('HDEL', KEYS[4], unpack(oldest, i, math.min(i + ${UNPACK_CHUNK - 1}, #oldest)))
  end
end
redis.call('PEXPIRE', KEYS[4], ARGV[5])
redis.call('PEXPIRE', KEYS[5], ARGV[5])
return 1
`);

/**
 * One page of the live pending requests, newest first, after pruning the
 * expired ones. Returns Redis's now, the count, then user, expiry, request
 * JSON for each. KEYS: pending, pending order. ARGV: offset, count.
 */
const PENDING_PAGE = new LuaScript(`${REDIS_NOW}
${pruneExpired("KEYS[1]", "KEYS[2]")}
local total = redis.call('ZCARD', KEYS[2])
local first = tonumber(ARGV[1])
local page = redis.call('ZREVRANGE', KEYS[2], first, first + tonumber(ARGV[2]) - 1, 'WITHSCORES')
local reply = { now, total }
for i = 1, #page, 2 do
  reply[#reply + 1] = page[i]
  reply[#reply + 1] = page[i + 1]
  reply[#reply + 1] = redis.call('HGET', KEYS[1], page[i]) or ''
end
return reply
`);

/** Redeems a code once: the code is gone, the requester approved. KEYS: code, approved, pending, pending order. */
const APPROVE = new LuaScript(`
local request = redis.call('GET', KEYS[1])
if not request then return false end
redis.call('DEL', KEYS[1])
local who = cjson.decode(request)
local approval = { user = who.user, by = ARGV[1], at = tonumber(ARGV[2]) }
if who.name then approval.name = who.name end
redis.call('HSET', KEYS[2], who.user, cjson.encode(approval))
redis.call('HDEL', KEYS[3], who.user)
redis.call('ZREM', KEYS[4], who.user)
return request
`);

/** One page of `/access list`'s waiting people, newest first. */
export interface PendingPage {
  /** How many are waiting in all (at most MAX_PENDING_REQUESTS). */
  readonly total: number;
  readonly requests: readonly PairingRequest[];
  /** Redis's clock when the page was read, to say how long each code has left. */
  readonly now: number;
}

/**
 * Pairing and approvals in Redis. Codes are never stored, only their
 * hashes; each expires with its TTL and is redeemed at most once.
 */
export class AccessStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: KeyScheme,
  ) {}

  /** Stores `code` as `user`'s one live code for `ttlMs`, replacing an earlier one. */
  async issue(
    request: Omit<PairingRequest, "expiresAt">,
    code: string,
    ttlMs: number,
    now: number,
  ): Promise<PairingRequest> {
    const keys = this.keys.access();
    const hash = pairingCodeHash(code);
    const stored: PairingRequest = { ...request, expiresAt: now + ttlMs };
    for (let attempt = 0; ; attempt++) {
      const current = (await this.redis.get(keys.codeOf(request.user))) ?? "";
      const issued = await ISSUE.run(
        this.redis,
        [
          keys.codeOf(request.user),
          keys.code(hash),
          current === "" ? keys.code(hash) : keys.code(current),
          keys.pending,
          keys.pendingOrder,
        ],
        [current, hash, JSON.stringify(stored), request.user, ttlMs, MAX_PENDING_REQUESTS],
      );
      if (Number(issued) === 1) return stored;
      // Another process issued meanwhile; at most a handful of rounds, then take the last word.
      if (attempt >= 5) return stored;
    }
  }

  /** The requester behind `code`, now approved; undefined when no live code matches. */
  async approve(code: string, by: string, now: number): Promise<PairingRequest | undefined> {
    const keys = this.keys.access();
    const reply = await APPROVE.run(
      this.redis,
      [keys.code(pairingCodeHash(code)), keys.approved, keys.pending, keys.pendingOrder],
      [by, now],
    );
    if (typeof reply !== "string") return undefined;
    return JSON.parse(reply) as PairingRequest;
  }

  async isApproved(user: string): Promise<boolean> {
    return (await this.redis.hexists(this.keys.access().approved, user)) === 1;
  }

  /** Lets an approved person go; false when they were not approved. */
  async revoke(user: string): Promise<boolean> {
    return (await this.redis.hdel(this.keys.access().approved, user)) === 1;
  }

  async approvals(): Promise<Approval[]> {
    const all = await this.redis.hgetall(this.keys.access().approved);
    return Object.values(all)
      .flatMap((json) => readJson<Approval>(json))
      .sort((a, b) => a.user.localeCompare(b.user));
  }

  /**
   * `count` live pending requests from `offset`, newest first, and how many
   * there are; expired ones are dropped on the way, on Redis's clock.
   */
  async pending(offset = 0, count = 10): Promise<PendingPage> {
    const keys = this.keys.access();
    const reply = (await PENDING_PAGE.run(
      this.redis,
      [keys.pending, keys.pendingOrder],
      [Math.max(0, Math.trunc(offset)), Math.max(1, Math.trunc(count))],
    )) as unknown[];
    const requests: PairingRequest[] = [];
    for (let i = 2; i + 2 < reply.length; i += 3) {
      const user = String(reply[i]);
      const stored = readJson<PairingRequest>(String(reply[i + 2]))[0];
      requests.push({ ...stored, user, expiresAt: Number(reply[i + 1]) });
    }
    return { now: Number(reply[0]), total: Number(reply[1]), requests };
  }

  /**
   * Whether `key`'s holder should be told (again): true at most once per
   * `intervalMs`, across every process (SET NX PX).
   */
  async noticeDue(key: string, intervalMs: number): Promise<boolean> {
    return (
      (await this.redis.set(key, "1", "PX", Math.max(1, Math.trunc(intervalMs)), "NX")) === "OK"
    );
  }
}

function readJson<T>(json: string): T[] {
  try {
    return [JSON.parse(json) as T];
  } catch {
    return [];
  }
}
