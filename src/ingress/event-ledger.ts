import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { type ChannelStateKeys, channelStateKeys } from "../store/channel-keys.ts";
import { LuaScript } from "../store/lua.ts";

/** Claims an event for one delivery; see the script. */
const CLAIM = LuaScript.file("event-claim-1");

/** Lets go of a claim that did not finish, so a redelivery is taken. */
const RELEASE = LuaScript.file("event-release-1");

/** What one delivery of a platform event found. */
export type EventClaim =
  /** The first delivery: take it, then `done` or `release`. */
  | "fresh"
  /** Taken before: do nothing (a platform retry, a gateway replay, a second ingress process). */
  | "done"
  /** Another delivery is taking it right now: let the platform deliver it again later. */
  | "taking";

/**
 * Which platform events (messages, typed commands, slash commands, button
 * presses) ingress has taken, by the platform's own id for the event, in
 * Redis: a redelivered event never makes a second turn, a second answer to
 * a command, or a second switch from a button. A claim that fails is
 * released, so the redelivery is taken; a claim whose process died expires
 * after `takingMs`.
 *
 * @example
 * const ledger = new EventLedger(redis, keys.channelState("slack", "T0123"));
 * await ledger.take(`cmd:${triggerId}`, () => answer(command)); // false: taken before
 */
export class EventLedger {
  readonly #keys: ChannelStateKeys;

  constructor(
    private readonly redis: Redis,
    /**
     * This installation's keys (`KeyScheme#channelState`), or their base
     * as a string, e.g. `<prefix>:telegram:<bot id>`.
     */
    where: ChannelStateKeys | string,
    private readonly takingMs = 60_000,
    private readonly doneMs = 24 * 3600 * 1000,
  ) {
    this.#keys = typeof where === "string" ? channelStateKeys(where) : where;
  }

  async claim(id: string): Promise<EventClaim> {
    const own = `taking:${randomUUID()}`;
    const state = String(await CLAIM.run(this.redis, [this.#key(id)], [this.takingMs, own]));
    if (state === "fresh") return "fresh";
    // Claims of before this nonce were the bare word.
    return state.startsWith("taking") ? "taking" : "done";
  }

  async done(id: string): Promise<void> {
    await this.redis.set(this.#key(id), "done", "PX", this.doneMs);
  }

  async release(id: string): Promise<void> {
    await RELEASE.run(this.redis, [this.#key(id)]);
  }

  /**
   * Runs `work` for the first delivery of an event: true when it ran, false
   * when the event was taken before or is being taken now. A `work` that
   * throws releases the claim (so the platform's redelivery runs it) and
   * rethrows.
   */
  async take(id: string, work: () => Promise<void>): Promise<boolean> {
    if ((await this.claim(id)) !== "fresh") return false;
    try {
      await work();
    } catch (error) {
      await this.release(id).catch(() => {});
      throw error;
    }
    await this.done(id);
    return true;
  }

  #key(id: string): string {
    return this.#keys.event(id);
  }
}
