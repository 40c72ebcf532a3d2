import type { Redis } from "ioredis";
import type { ConversationAddress } from "../core/conversation.ts";
import type { KeyScheme } from "./keys.ts";
import { LuaScript } from "./lua.ts";

/** What `/new` forgets: the history and discovery mounts, or (`--all`) the intent and chat settings too. */
export type ResetKind = "history" | "all";

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
