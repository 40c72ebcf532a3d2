import {
  EMPTY_INTENT,
  INTENT_VERSION,
  type Intent,
  type IntentChange,
  type IntentReading,
} from "../core/availability/intent.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import { readHash } from "./hash-read.ts";
import {
  checkIntentChange,
  type FieldChange,
  fieldWrites,
  intentFromHash,
  MOUNT_PREFIX,
  MOUNT_SEQ_FIELD,
} from "./intent-fields.ts";
import { hashFromReply, LuaScript } from "./lua.ts";
import { resetFields } from "./reset-fields.ts";
import { StateStore } from "./state-store.ts";
import { runTransaction } from "./transaction.ts";

/**
 * Appends discovery mounts in the order given, skipping ids already mounted:
 * each new `m:<id>` field gets the next number of the `mseq` counter.
 */
const mountIds = LuaScript.file("intent-mount-1");

/**
 * A conversation's intent in Redis: one hash, one field per decision, each
 * change applied atomically on its own fields. Two people switching two keys
 * at the same moment both stick; two switching the same key, the last one
 * wins. {@link applyChange} is the reference: applying changes here and
 * reading back equals folding them over the empty intent in memory.
 *
 * @example
 * await store.apply(address, { kind: "set", key: "web_search", value: "off" });
 * await store.apply(address, { kind: "mount", ids: ["mcp__github__create_issue"] });
 * const { intent, problems } = await store.read(address);
 */
export class IntentStore extends StateStore {
  /** The stored intent; never throws on damaged data, which reads as "follow" and is reported. */
  async read(address: ConversationAddress): Promise<IntentReading> {
    const { hash, problem } = await readHash(this.redis, this.keys.conversation(address).intent);
    return this.fromHash(address, hash, problem);
  }

  /**
   * Reads intent from a hash fetched elsewhere (a worker's one-script turn
   * snapshot), with the same damage reporting as {@link read}. `problem` is a
   * failure to fetch it at all (a key of another type).
   */
  fromHash(
    address: ConversationAddress,
    hash: Record<string, string>,
    problem?: string,
  ): IntentReading {
    const key = this.keys.conversation(address).intent;
    if (problem !== undefined) {
      this.warnings.warn(
        key,
        `${problem}; the conversation follows its scopes until the key is deleted.`,
      );
      return { intent: EMPTY_INTENT, problems: [problem] };
    }
    return this.#reading(key, hash);
  }

  /**
   * Applies one change atomically and returns the intent right after it.
   * Throws a StoreInputError, writing nothing, when the change names a
   * malformed key, id, mode or toolset.
   */
  async apply(address: ConversationAddress, change: IntentChange): Promise<Intent> {
    checkIntentChange(change);
    const key = this.keys.conversation(address).intent;
    return this.#reading(key, await this.#write(key, change)).intent;
  }

  async #write(key: string, change: IntentChange): Promise<Record<string, string>> {
    if (change.kind === "mount") {
      return hashFromReply(await mountIds.run(this.redis, [key], [INTENT_VERSION, ...change.ids]));
    }
    if (change.kind === "reset" && change.key === undefined) {
      // Everything but the discovery mounts, which the conversation has loaded.
      const keep = [MOUNT_PREFIX, MOUNT_SEQ_FIELD];
      return hashFromReply(await resetFields.run(this.redis, [key], [INTENT_VERSION, ...keep]));
    }
    const writes = fieldWrites(change as FieldChange); // a reset here names its key
    const multi = this.redis.multi();
    if (writes.del.length > 0) multi.hdel(key, ...writes.del);
    multi.hset(key, { ...writes.set, v: String(INTENT_VERSION) });
    multi.hgetall(key);
    const replies = await runTransaction(multi);
    return replies.at(-1) as Record<string, string>;
  }

  #reading(key: string, hash: Record<string, string>): IntentReading {
    const reading = intentFromHash(hash);
    for (const problem of reading.problems) {
      this.warnings.warn(
        `${key} ${problem}`,
        `Stored intent ${key} has a damaged field (${problem}); it reads as "follow".`,
      );
    }
    return reading;
  }
}
