import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import type { KeyScheme } from "./keys.ts";
import { LuaScript } from "./lua.ts";

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
 * Gives a requester a new code, in place of the one they had (whose hash
 * `ARGV[1]` says, checked so two ingress processes cannot both issue one):
 * at most one live code per requester.
 * KEYS: codeOf, new code, old code (or the new one again), pending.
 */
const ISSUE = new LuaScript(`
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
if KEYS[3] ~= KEYS[2] then redis.call('DEL', KEYS[3]) end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[5])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[5])
redis.call('HSET', KEYS[4], ARGV[4], ARGV[3])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
return 1
`);

/** Redeems a code once: the code is gone, the requester approved. KEYS: code, approved, pending. */
const APPROVE = new LuaScript(`
local request = redis.call('GET', KEYS[1])
if not request then return false end
redis.call('DEL', KEYS[1])
local who = cjson.decode(request)
local approval = { user = who.user, by = ARGV[1], at = tonumber(ARGV[2]) }
if who.name then approval.name = who.name end
redis.call('HSET', KEYS[2], who.user, cjson.encode(approval))
redis.call('HDEL', KEYS[3], who.user)
return request
`);

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
        ],
        [current, hash, JSON.stringify(stored), request.user, ttlMs],
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
      [keys.code(pairingCodeHash(code)), keys.approved, keys.pending],
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

  /** The live pending requests; expired ones are dropped on the way. */
  async pending(now: number): Promise<PairingRequest[]> {
    const key = this.keys.access().pending;
    const all = await this.redis.hgetall(key);
    const live: PairingRequest[] = [];
    const expired: string[] = [];
    for (const [user, json] of Object.entries(all)) {
      const request = readJson<PairingRequest>(json)[0];
      if (request && request.expiresAt > now) live.push(request);
      else expired.push(user);
    }
    if (expired.length > 0) await this.redis.hdel(key, ...expired);
    return live.sort((a, b) => a.expiresAt - b.expiresAt);
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
