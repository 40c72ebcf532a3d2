import type { Redis } from "ioredis";
import type { KeyScheme } from "../../store/keys.ts";
import { LuaScript } from "../../store/lua.ts";
import type { AssistantContext } from "./assistant-event.ts";

/** How long a pane thread is remembered after its last event or message, as the bot's threads are. */
const ASSISTANT_THREAD_TTL_S = 30 * 24 * 3600;

const SAVE_CONTEXT = LuaScript.file("assistant-context-1");

/** One thread of the assistant pane, as stored. */
export interface AssistantThread {
  /** Who opened the pane. */
  readonly user: string;
  /** What they are looking at now (the latest context Slack sent). */
  readonly context: AssistantContext;
  /** The channel's name, when `conversations.info` told it (the bot is in the channel). */
  readonly channelName?: string;
}

/** Where a pane thread is: the installation's workspace and the DM the thread is in. */
export interface AssistantThreadRef {
  readonly workspace: string;
  /** The DM (D…). */
  readonly channel: string;
  /** The thread's root ts. */
  readonly thread: string;
}

/**
 * The assistant pane's threads in Redis, one HASH each (`KeyScheme#assistantThread`):
 * `user`, the context's `channel`, `team`, `enterprise` and `channel_name`
 * (each "" when Slack named none), `order` (the latest event's time) and
 * `titled` once the title is set. Every write replaces the whole context at
 * once, so a reader never sees half of an old context and half of a new one,
 * and an event older than the one stored (a redelivery, after the person
 * moved on) changes nothing; every write renews the TTL.
 *
 * @example
 * const threads = new AssistantThreads(redis, keys);
 * await threads.save(ref, { user: "U1", context: { channel: "C1", team: "T1" } });
 * (await threads.read(ref))?.context.channel; // "C1"
 * await threads.claimTitle(ref); // true once, then false
 */
export class AssistantThreads {
  constructor(
    private readonly redis: Redis,
    private readonly keys: KeyScheme,
  ) {}

  /**
   * Records what the person is looking at (a thread started, or its context
   * changed) as of `eventTs`, Slack's time for the event; false when a newer
   * event is already stored.
   */
  async save(ref: AssistantThreadRef, thread: AssistantThread, eventTs?: string): Promise<boolean> {
    const fields = {
      user: thread.user,
      channel: thread.context.channel ?? "",
      team: thread.context.team ?? "",
      enterprise: thread.context.enterprise ?? "",
      channel_name: thread.channelName ?? "",
    };
    const written = await SAVE_CONTEXT.run(
      this.redis,
      [this.#key(ref)],
      [
        ASSISTANT_THREAD_TTL_S,
        eventTs ? sortableTs(eventTs) : "",
        ...Object.entries(fields).flat(),
      ],
    );
    return written === 1;
  }

  /** The thread, or undefined when it is no pane thread the bot heard start (or it expired). */
  async read(ref: AssistantThreadRef): Promise<AssistantThread | undefined> {
    const fields = await this.redis.hgetall(this.#key(ref));
    if (!fields.user) return undefined;
    const context: AssistantContext = {
      ...(fields.channel ? { channel: fields.channel } : {}),
      ...(fields.team ? { team: fields.team } : {}),
      ...(fields.enterprise ? { enterprise: fields.enterprise } : {}),
    };
    return {
      user: fields.user,
      context,
      ...(fields.channel_name ? { channelName: fields.channel_name } : {}),
    };
  }

  /**
   * True for exactly one caller per thread, on any number of ingress
   * processes: the one that sets the thread's title. A title that then
   * fails is not tried again; the pane keeps Slack's own.
   */
  async claimTitle(ref: AssistantThreadRef): Promise<boolean> {
    const key = this.#key(ref);
    const [claimed] = (await this.redis
      .multi()
      .hsetnx(key, "titled", "1")
      .expire(key, ASSISTANT_THREAD_TTL_S)
      .exec()) as [[Error | null, number], unknown];
    return claimed[0] === null && claimed[1] === 1;
  }

  #key(ref: AssistantThreadRef): string {
    return this.keys.assistantThread(
      { platform: "slack", workspace: ref.workspace, channel: ref.channel },
      ref.thread,
    );
  }
}

/** A Slack ts ("1700000000.000100") as a string that compares as the time it is: fixed widths. */
export function sortableTs(ts: string): string {
  const [seconds = "", fraction = ""] = ts.split(".");
  return `${seconds.padStart(12, "0")}.${fraction.padEnd(9, "0")}`;
}
