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
 * How many strangers `/access list` keeps waiting at most. Past it the
 * oldest request leaves the list, not the newcomer: a flood of strangers
 * cannot lock out the one person the owner expects, and a dropped
 * request's code still works, so whoever hands an owner their code is let
 * in either way. The list is a view for owners, not the codes themselves.
 */
export const MAX_PENDING_REQUESTS = 1000;

/**
 * Gives a requester a new code, in place of the one they had: at most one
 * live code per requester, and at most MAX_PENDING_REQUESTS waiting, the
 * oldest dropped, expired ones pruned on Redis's clock. See the script.
 */
const ISSUE = LuaScript.file("access-issue-5");

/** One page of the live pending requests, newest first, after pruning the expired ones. */
const PENDING_PAGE = LuaScript.file("access-pending-page-2");

/** Redeems a code once: the code is gone, the requester approved. */
const APPROVE = LuaScript.file("access-approve-4");

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
