import { randomBytes } from "node:crypto";
import type { ApprovalDecision, DecidedBy, Verdict } from "../core/approvals/approval.ts";
import { VERDICTS } from "../core/approvals/approval.ts";
import { addressOnly, type ConversationAddress } from "../core/conversation.ts";
import { LuaScript } from "./lua.ts";
import { StateStore } from "./state-store.ts";

/**
 * How long a request's decision and index outlive its expiry: a click a day
 * late is still told who decided, and a turn resumed late still finds its
 * claims.
 */
export const APPROVAL_KEEP_MS = 86_400_000;

/** Records the first decision on the checkpoint's pending request; see the script. */
const DECIDE = LuaScript.file("approval-decide-2");

/** What recording a decision came to (see {@link ApprovalStore.decide}). */
export type DecideOutcome =
  | { readonly kind: "recorded" | "repeat" | "decided"; readonly decision: ApprovalDecision }
  | { readonly kind: "unknown" };

/** A request's decision as stored, and whether its message was edited to the outcome. */
export interface StoredDecision {
  readonly decision: ApprovalDecision | undefined;
  readonly edited: boolean;
}

/**
 * Approval requests' decisions, in Redis: the first decision on a pending
 * request wins (one script, next to the checkpoint it checks), each
 * approved call is claimed before it runs (so a crash never runs it twice),
 * and an index finds a request's conversation from its id alone.
 *
 * @example
 * const id = newApprovalId();
 * await approvals.index(id, address, wait.expiresAt - Date.now());
 * await approvals.decide(address, id, { verdict: "approved", by: { user: "U1" }, at: Date.now() });
 * if (await approvals.claim(address, id, call.id)) await run(call);
 */
export class ApprovalStore extends StateStore {
  /** Remembers which conversation request `id` is in, until `ttlMs` past now plus a day. */
  async index(id: string, address: ConversationAddress, ttlMs: number): Promise<void> {
    const where = addressOnly(address);
    await this.redis.set(
      this.keys.approvalIndex(id),
      JSON.stringify(where),
      "PX",
      Math.max(0, ttlMs) + APPROVAL_KEEP_MS,
    );
  }

  /** The conversation of request `id`; undefined when unknown or long finished. */
  async addressOf(id: string): Promise<ConversationAddress | undefined> {
    const raw = await this.redis.get(this.keys.approvalIndex(id));
    if (raw === null) return undefined;
    try {
      const value = JSON.parse(raw) as Record<string, unknown>;
      const parts = ["platform", "workspace", "channel", "conversation"] as const;
      if (!parts.every((p) => typeof value[p] === "string")) return undefined;
      if (value.account !== undefined && typeof value.account !== "string") return undefined;
      return value as unknown as ConversationAddress;
    } catch {
      return undefined;
    }
  }

  /**
   * Records `decision` on the conversation's pending request `id` if it is
   * the first (see {@link DECIDE}); a person's decision after the request
   * expired records `expired` instead and comes back as `decided`.
   */
  async decide(
    address: ConversationAddress,
    id: string,
    decision: ApprovalDecision,
  ): Promise<DecideOutcome> {
    const reply = (await DECIDE.run(
      this.redis,
      [this.keys.approval(address, id), this.keys.conversation(address).checkpoint],
      [
        id,
        decision.verdict,
        decision.by?.user ?? "",
        decision.by?.name ?? "",
        decision.at,
        APPROVAL_KEEP_MS,
      ],
    )) as string[];
    const [kind, verdict, user, name, at] = reply;
    if (kind === "unknown") return { kind: "unknown" };
    return {
      kind: kind as "recorded" | "repeat" | "decided",
      decision: decisionOf(verdict, user, name, at) as ApprovalDecision,
    };
  }

  /** The decision on request `id`, if one was made, and whether its message shows it yet. */
  async read(address: ConversationAddress, id: string): Promise<StoredDecision> {
    const [verdict, user, name, at, edited] = await this.redis.hmget(
      this.keys.approval(address, id),
      "verdict",
      "user",
      "name",
      "at",
      "edited",
    );
    return { decision: decisionOf(verdict, user, name, at), edited: edited !== null };
  }

  /**
   * Claims an approved call before it runs: true the first time, false ever
   * after (a crashed run claimed it: it may have taken effect, so it is not
   * run again).
   */
  async claim(address: ConversationAddress, id: string, callId: string): Promise<boolean> {
    const key = this.keys.approval(address, id);
    const [[, claimed]] = (await this.redis
      .multi()
      .hsetnx(key, `claim:${callId}`, "1")
      .pexpire(key, APPROVAL_KEEP_MS)
      .exec()) as [[unknown, number]];
    return Number(claimed) === 1;
  }

  /** Notes that the request's message now shows its outcome, so a resumed turn does not edit it again. */
  async markEdited(address: ConversationAddress, id: string): Promise<void> {
    await this.redis.hset(this.keys.approval(address, id), "edited", "1");
  }
}

/** A fresh request id: 12 characters of `[a-z0-9]`, about 62 bits, short enough for Telegram's 64-byte payloads. */
export function newApprovalId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  // 256 % 36 = 4: bytes 252..255 would favour the first letters, so they are drawn again.
  let id = "";
  while (id.length < 12) {
    for (const byte of randomBytes(16)) {
      if (byte < 252 && id.length < 12) id += alphabet[byte % 36];
    }
  }
  return id;
}

function decisionOf(
  verdict: string | null | undefined,
  user: string | null | undefined,
  name: string | null | undefined,
  at: string | null | undefined,
): ApprovalDecision | undefined {
  if (!verdict || !(VERDICTS as readonly string[]).includes(verdict)) return undefined;
  const by: DecidedBy | undefined = user ? { user, ...(name ? { name } : {}) } : undefined;
  return { verdict: verdict as Verdict, ...(by ? { by } : {}), at: Number(at) || 0 };
}
