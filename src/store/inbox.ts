import type { Redis } from "ioredis";
import type { ConversationAddress, InboundMessage } from "../core/conversation.ts";
import type { ConversationKeys, KeyScheme } from "./keys.ts";
import { LuaScript } from "./lua.ts";
import type { UsageCounting } from "./usage-store.ts";

/** Appends a message unless its event id was seen lately (a duplicate). */
const PUSH = LuaScript.file("inbox-push-2");

/** Takes the conversation's lease, or renews it when it is ours already. */
const ACQUIRE = LuaScript.file("inbox-acquire-1");

/** Extends the lease while it is ours. */
const RENEW = LuaScript.file("inbox-renew-1");

/**
 * Ends the turn in progress: drops its consumed messages and checkpoint, and
 * lets go of the lease only if nothing is left. Run again, it ends it once.
 */
const FINISH = LuaScript.file("inbox-finish-3");

/**
 * {@link FINISH}, counting the turn's usage for the conversation in the same
 * step (a turn ends once, so it is counted once), and answering the consumed
 * messages, whose budget reservations are settled with it.
 */
const FINISH_COUNTED = LuaScript.file("inbox-finish-counted-5");

/** Lets go of the lease only if there is nothing to do. */
const RELEASE = LuaScript.file("inbox-release-3");

/**
 * Parks a turn waiting for approval: lets go of the lease although its
 * checkpoint remains, unless what it waits for came meanwhile.
 */
const PARK = LuaScript.file("inbox-park-4");

/** Drops messages given up before their turn began, and their pickup count, once. */
const DROP = LuaScript.file("inbox-drop-3");

/** The conversation's keys the inbox works on (see {@link ConversationKeys}). */
export type InboxKeys = Pick<
  ConversationKeys,
  "inbox" | "seen" | "lease" | "checkpoint" | "control" | "pickups"
>;

/**
 * A conversation's inbox and its lease, in Redis, next to the conversation's
 * other keys (one hash slot). Every operation that decides who processes what
 * is one Lua script, so the classic race — a worker finding the inbox empty
 * and letting go just as a message arrives — cannot happen: `finish` trims
 * and releases in one step, and a message pushed before it is seen by it.
 */
export class Inbox {
  constructor(
    readonly redis: Redis,
    private readonly keys: KeyScheme,
    /** How long an event id is remembered for dedupe. */
    private readonly dedupeMs = 24 * 60 * 60 * 1000,
  ) {}

  keysOf(address: ConversationAddress): InboxKeys {
    return this.keys.conversation(address);
  }

  /** Appends a message unless its event id was seen. Returns false for a duplicate. */
  async push(message: InboundMessage, now: number): Promise<boolean> {
    const k = this.keysOf(message);
    const result = await PUSH.run(
      this.redis,
      [k.seen, k.inbox],
      [message.eventId, now, this.dedupeMs, JSON.stringify({ ...message, receivedAt: now })],
    );
    return Number(result) > 0;
  }

  /** Everything waiting, oldest first. */
  async pending(address: ConversationAddress): Promise<InboundMessage[]> {
    const raw = await this.redis.lrange(this.keysOf(address).inbox, 0, -1);
    return raw.map((text) => JSON.parse(text) as InboundMessage);
  }

  async acquire(address: ConversationAddress, token: string, ttlMs: number): Promise<boolean> {
    const k = this.keysOf(address);
    return Number(await ACQUIRE.run(this.redis, [k.lease], [token, ttlMs])) === 1;
  }

  async renew(address: ConversationAddress, token: string, ttlMs: number): Promise<boolean> {
    const k = this.keysOf(address);
    return Number(await RENEW.run(this.redis, [k.lease], [token, ttlMs])) === 1;
  }

  async holder(address: ConversationAddress): Promise<{ token: string | null; ttlMs: number }> {
    const k = this.keysOf(address);
    const [[, token], [, ttl]] = (await this.redis.multi().get(k.lease).pttl(k.lease).exec()) as [
      [unknown, string | null],
      [unknown, number],
    ];
    return { token, ttlMs: Number(ttl) };
  }

  /**
   * Ends the turn in progress (its checkpoint is stored): see {@link FINISH}.
   * With `usage`, the conversation's counters count the turn in the same
   * step, and `answered` holds the messages it consumed. `left` is the
   * number of messages left, or -1 if the lease was lost (and nothing was
   * written). Run twice, it ends the turn once (the second run answers none).
   */
  async finish(
    address: ConversationAddress,
    token: string,
    consumed: number,
    usage?: UsageCounting,
  ): Promise<{ left: number; answered: InboundMessage[] }> {
    const k = this.keysOf(address);
    const [left, ...answered] = (
      usage === undefined
        ? await FINISH.run(this.redis, [k.lease, k.inbox, k.checkpoint], [token, consumed])
        : await FINISH_COUNTED.run(
            this.redis,
            [k.lease, k.inbox, k.checkpoint, ...usage.keys],
            [token, consumed, ...usage.args],
          )
    ) as [number, ...string[]];
    return {
      left: Number(left),
      answered: answered.map((text) => JSON.parse(text) as InboundMessage),
    };
  }

  /**
   * Drops the first `count` messages, when the first is still `firstEventId`:
   * a turn given up before it began (see `giveUpUnbegun`). Keeps the lease;
   * the drain looks at the inbox again. Returns false if the lease was lost.
   * Run twice, it drops them once.
   */
  async drop(
    address: ConversationAddress,
    token: string,
    firstEventId: string,
    count: number,
  ): Promise<boolean> {
    const k = this.keysOf(address);
    const dropped = await DROP.run(
      this.redis,
      [k.lease, k.inbox, k.pickups],
      [token, firstEventId, count],
    );
    return Number(dropped) === 1;
  }

  /**
   * Lets go of a conversation whose turn waits for approval (see {@link PARK}):
   * "parked" (the lease is free; a wake job resumes the turn), "look" (what
   * it waits for came meanwhile: resume now), or "lost".
   */
  async park(
    address: ConversationAddress,
    token: string,
    wait: {
      readonly approvalId: string;
      readonly turnId: string;
      readonly consumed: number;
      readonly wakeOnMessage: boolean;
    },
  ): Promise<"parked" | "look" | "lost"> {
    const k = this.keysOf(address);
    const parked = Number(
      await PARK.run(
        this.redis,
        [k.lease, k.inbox, this.keys.approval(address, wait.approvalId), k.control],
        [token, wait.turnId, wait.consumed, wait.wakeOnMessage ? 1 : 0],
      ),
    );
    return parked === 0 ? "parked" : parked === 1 ? "look" : "lost";
  }

  /** Lets go when idle. Returns 0 when released, >0 when there is work after all, -1 if lost. */
  async release(address: ConversationAddress, token: string): Promise<number> {
    const k = this.keysOf(address);
    return Number(await RELEASE.run(this.redis, [k.lease, k.inbox, k.checkpoint], [token]));
  }

  /** Nothing waiting, no turn in progress, no lease: the conversation is at rest. */
  async idle(address: ConversationAddress): Promise<boolean> {
    const k = this.keysOf(address);
    return (await this.redis.exists(k.inbox, k.checkpoint, k.lease)) === 0;
  }
}
