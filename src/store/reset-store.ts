import type { Redis } from "ioredis";
import type { ConversationAddress } from "../core/agent/inbound.ts";
import type { KeyScheme } from "./keys.ts";
import { LuaScript } from "./lua.ts";

/** What `/new` forgets: the history and discovery mounts, or (`--all`) the intent and chat settings too. */
export type ResetKind = "history" | "all";

/**
 * The text of `src/store/lua/includes/apply-reset.lua` (without its
 * comments), for the worker's snapshot script until that script is a file
 * that includes it too: delete this then. A unit test keeps the two the same.
 * Defines `apply_reset(kind, history, trimmed, intent, settings)`, which starts
 * a conversation afresh: history and its trim count go, and the discovery
 * mounts (`m:<id>`, `mseq`) of the intent; `all` drops the whole intent and
 * the chat settings.
 */
export const APPLY_RESET_LUA = `
local function apply_reset(kind, history, trimmed, intent, settings)
  redis.call('DEL', history, trimmed)
  if kind == 'all' then
    redis.call('DEL', intent, settings)
  elseif redis.call('TYPE', intent)['ok'] == 'hash' then
    for _, field in ipairs(redis.call('HKEYS', intent)) do
      if field == 'mseq' or string.sub(field, 1, 2) == 'm:' then redis.call('HDEL', intent, field) end
    end
  end
end
`;

/**
 * `/new` with no worker on the conversation resets it now; else it leaves a
 * marker the worker applies at its next turn boundary. See the script.
 */
const REQUEST = LuaScript.file("reset-request-7");

/**
 * `/new`: a fresh start for one conversation, atomic against a turn in
 * progress. A turn that is running keeps its history and delivers its
 * answer; the reset happens at the next turn boundary, before that turn
 * reads anything (see the worker's snapshot script).
 */
export class ResetStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: KeyScheme,
  ) {}

  /** `now` when the conversation was reset at once, `later` when it waits for the running turn. */
  async request(address: ConversationAddress, kind: ResetKind): Promise<"now" | "later"> {
    const k = this.keys.conversation(address);
    const reply = await REQUEST.run(
      this.redis,
      [k.lease, k.checkpoint, k.history, k.historyTrimmed, k.intent, k.settings, k.reset],
      [kind],
    );
    return reply === "now" ? "now" : "later";
  }
}
