import type { Redis } from "ioredis";
import type { ChannelStateKeys, KeyScheme } from "../store/keys.ts";
import { EventLedger } from "./event-ledger.ts";

/** How long the bot remembers it is part of a thread. */
const THREAD_TTL_S = 30 * 24 * 3600;

/**
 * A channel's own small state in Redis, every key from the {@link KeyScheme}:
 * the events its ingress has taken (the {@link EventLedger}), the threads
 * the bot is part of, and (`keys.offset`) where long polling resumes.
 *
 * @example
 * const state = new ChannelState(runtime.redis, keys, "discord", botUserId);
 * await state.events.take(`message:${id}`, () => answer(message));
 * await state.rememberThread(keys.platformThread("discord", threadId));
 */
export class ChannelState {
  readonly keys: ChannelStateKeys;
  readonly events: EventLedger;

  constructor(
    private readonly redis: Redis,
    scheme: KeyScheme,
    platform: string,
    /** The installation: a Slack team, a Discord bot user, a Telegram bot id. */
    installation: string,
  ) {
    this.keys = scheme.channelState(platform, installation);
    this.events = new EventLedger(redis, this.keys);
  }

  /** The bot is part of the thread under `threadKey` (`KeyScheme#thread`, `#platformThread`) for 30 days. */
  async rememberThread(threadKey: string): Promise<void> {
    await this.redis.set(threadKey, "1", "EX", THREAD_TTL_S);
  }

  async inThread(threadKey: string): Promise<boolean> {
    return (await this.redis.exists(threadKey)) === 1;
  }
}
