import type { Redis } from "ioredis";
import { LuaScript } from "../../store/lua.ts";

/** Advances the offset, never back, so a slow writer cannot replay updates. */
const ADVANCE = LuaScript.file("offset-advance-1");

/**
 * The next update id the bot has not taken yet, in Redis, so long polling
 * resumes where it stopped after a restart. Telegram forgets an update once
 * a `getUpdates` asks for a higher offset; this is advanced only after the
 * update is on the queue (or answered), so nothing confirmed was lost, and an
 * update taken but not yet recorded comes again and is deduped.
 */
export class UpdateOffset {
  constructor(
    private readonly redis: Redis,
    /** One per bot: `KeyScheme#channelState("telegram", <bot id>).offset`. */
    readonly key: string,
  ) {}

  /** The offset to ask `getUpdates` for; undefined before the first update. */
  async read(): Promise<number | undefined> {
    const raw = await this.redis.get(this.key);
    const value = raw === null ? Number.NaN : Number(raw);
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  }

  /** Records that every update below `offset` is taken; returns the offset now stored. */
  async advance(offset: number): Promise<number> {
    return Number(await ADVANCE.run(this.redis, [this.key], [offset]));
  }
}
