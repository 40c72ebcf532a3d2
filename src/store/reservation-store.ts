import type { Redis } from "ioredis";
import type { InboundMessage } from "../core/conversation.ts";
import type { KeyScheme, ReservationOwner } from "./keys.ts";
import { LuaScript } from "./lua.ts";
import type { OwnedCounting } from "./usage-store.ts";

/** Its scripts: src/store/lua/reservation-*.lua, each file saying what it does, its keys and arguments. */
const LUA = LuaScript.set("reservation", { reserve: 3, release: 2, settle: 4, held: 2 });

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
    const reply = (await LUA.reserve.run(
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
    await LUA.release.run(this.redis, [k.deadlines, k.tokens], ids);
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
        LUA.settle.run(
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
    return Number(await LUA.held.run(this.redis, [k.deadlines, k.tokens]));
  }
}
