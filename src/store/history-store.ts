import type { ChatMessage } from "../core/agent/messages.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import { StoreInputError } from "./errors.ts";
import {
  type CompactionLimits,
  entryTokens,
  type KnownEntries,
  planCompaction,
} from "./history-groups.ts";
import { LuaScript, UNPACK_CHUNK } from "./lua.ts";
import { decodeMessage, encodeMessage } from "./message-json.ts";
import { StateStore } from "./state-store.ts";
import { runTransaction } from "./transaction.ts";

/**
 * Drops the head of history if nothing else dropped any since it was read:
 * `trimmed` counts every message ever dropped, so a concurrent compaction is
 * seen, while a concurrent append (at the tail) is kept.
 */
const trimHead = LuaScript.file("history-trim-head-2");

const COMPACTION_ATTEMPTS = 5;

export interface HistoryReading {
  /** The stored entries, as stored. */
  readonly raw: readonly string[];
  /** How many messages compaction had dropped when this was read. */
  readonly trimmed: number;
  readonly messages: ChatMessage[];
}

/** A conversation's last reading, decoded and estimated entry by entry (see HistoryStore's #known). */
interface KnownReading extends KnownEntries {
  readonly trimmed: number;
  readonly raw: readonly string[];
  readonly messages: readonly ChatMessage[];
  readonly chars: number;
}

/** How many characters of conversations' last readings a process keeps: 32 Mi, about what the memos hold. */
const RECENT_CHARS = 32 * 1024 * 1024;

export interface CompactionResult {
  /** Messages dropped from the head (whole groups). */
  readonly dropped: number;
  /** Estimated tokens of the history that stays. */
  readonly tokens: number;
}

/**
 * A conversation's messages: a LIST of canonical JSON strings, oldest first,
 * appended and never rewritten. Compaction only ever drops whole groups from
 * the head (see `planCompaction`), so what stays replays byte for byte.
 *
 * @example
 * const messages = await history.load(address);
 * await history.compact(address, { maxTokens: 60_000, keepLast: 4 });
 */
export class HistoryStore extends StateStore {
  readonly #recent = new Map<string, KnownReading>();
  #recentChars = 0;

  /** Every stored message, oldest first. An unreadable entry is skipped with a warning. */
  async load(address: ConversationAddress): Promise<ChatMessage[]> {
    const key = this.keys.conversation(address).history;
    return this.#decode(key, await this.redis.lrange(key, 0, -1));
  }

  /**
   * History as stored, with the compaction counter, read together: what a
   * turn starts from, and what {@link compactRead} plans on without reading
   * it again.
   */
  async read(address: ConversationAddress): Promise<HistoryReading> {
    // Not a transaction: only the turn's lease holder writes history, and a
    // compaction planned on a stale reading is refused by trimHead anyway.
    const keys = this.keys.conversation(address);
    const [raw, trimmed] = await Promise.all([
      this.redis.lrange(keys.history, 0, -1),
      this.redis.get(keys.historyTrimmed),
    ]);
    return this.fromStored(address, raw, trimmed);
  }

  /** A reading from entries fetched elsewhere (a turn snapshot). */
  fromStored(address: ConversationAddress, raw: string[], trimmed: string | null): HistoryReading {
    const key = this.keys.conversation(address).history;
    const count = Number(trimmed ?? 0);
    const known = this.#known(key, raw, count);
    return { raw, trimmed: count, messages: known ? [...known.messages] : this.#decode(key, raw) };
  }

  /**
   * Every entry of `raw` decoded and estimated, reusing the conversation's
   * last reading wherever an entry is the same string at the same place
   * (history only grows at the tail and loses whole heads, so turn after
   * turn that is all but the newest few): a long conversation's turn then
   * decodes what was appended, not its whole history. Undefined when an
   * entry does not decode; the caller decodes with warnings.
   */
  #known(key: string, raw: readonly string[], trimmed: number): KnownReading | undefined {
    const last = this.#recent.get(key);
    const messages: ChatMessage[] = [];
    const costs: number[] = [];
    if (last !== undefined) {
      const shift = trimmed - last.trimmed;
      for (let i = 0; i < raw.length && shift >= 0 && shift + i < last.raw.length; i++) {
        if (last.raw[shift + i] !== raw[i]) break;
        messages.push(last.messages[shift + i] as ChatMessage);
        costs.push(last.costs[shift + i] as number);
      }
    }
    for (let i = messages.length; i < raw.length; i++) {
      const message = decodeMessage(raw[i] as string);
      if (message === undefined) return undefined;
      messages.push(message);
      costs.push(entryTokens(raw[i] as string));
    }
    let chars = 0;
    for (const entry of raw) chars += entry.length;
    const known = { trimmed, raw, messages, costs, chars };
    this.#forget(key);
    if (chars > RECENT_CHARS) return known;
    this.#recent.set(key, known);
    this.#recentChars += chars;
    // Bounded: the conversations read longest ago are forgotten first (their entries stay in the memos).
    while (this.#recentChars > RECENT_CHARS)
      this.#forget(this.#recent.keys().next().value as string);
    return known;
  }

  #forget(key: string): void {
    const known = this.#recent.get(key);
    if (known === undefined) return;
    this.#recent.delete(key);
    this.#recentChars -= known.chars;
  }

  /**
   * Compacts from a reading taken a moment ago: plans locally, trims only if
   * history is still as read (else falls back to {@link compact} and reads
   * again), and returns the reading of what stays.
   */
  async compactRead(
    address: ConversationAddress,
    reading: HistoryReading,
    limits: CompactionLimits,
  ): Promise<HistoryReading> {
    checkLimits(limits);
    const keys = this.keys.conversation(address);
    const known = this.#recent.get(keys.history);
    const plan = planCompaction(
      reading.raw,
      limits,
      known?.raw === reading.raw ? known : undefined,
    );
    if (plan.drop === 0) return reading;
    const args = [reading.trimmed, reading.raw.length, plan.drop];
    if ((await trimHead.run(this.redis, [keys.history, keys.historyTrimmed], args)) === 1) {
      const raw = reading.raw.slice(plan.drop);
      return this.fromStored(address, raw, String(reading.trimmed + plan.drop));
    }
    await this.compact(address, limits);
    return this.read(address);
  }

  /**
   * The messages before and from a list position (a turn's `historyStart`),
   * split on the stored entries so an unreadable entry cannot shift the cut.
   */
  split(
    address: ConversationAddress,
    reading: HistoryReading,
    start: number,
  ): { before: ChatMessage[]; from: ChatMessage[] } {
    if (reading.messages.length === reading.raw.length) {
      // Every entry decoded: the positions line up, no need to decode again.
      return { before: reading.messages.slice(0, start), from: reading.messages.slice(start) };
    }
    const key = this.keys.conversation(address).history;
    return {
      before: this.#decode(key, reading.raw.slice(0, start)),
      from: this.#decode(key, reading.raw.slice(start)),
    };
  }

  #decode(key: string, entries: readonly string[]): ChatMessage[] {
    const messages: ChatMessage[] = [];
    for (const entry of entries) {
      const message = decodeMessage(entry);
      if (message) messages.push(message);
      else {
        this.warnings.warn(
          `${key} ${entry.slice(0, 200)}`,
          `Skipping an unreadable message in ${key}: ${entry.slice(0, 80)}`,
        );
      }
    }
    return messages;
  }

  async length(address: ConversationAddress): Promise<number> {
    return this.redis.llen(this.keys.conversation(address).history);
  }

  /**
   * Appends messages outside a turn's steps (a turn's own go through
   * `TurnStore.commitStep`, with its checkpoint). Returns the new length.
   */
  async append(address: ConversationAddress, messages: readonly ChatMessage[]): Promise<number> {
    const key = this.keys.conversation(address).history;
    if (messages.length === 0) return this.redis.llen(key);
    let length = 0;
    for (let i = 0; i < messages.length; i += UNPACK_CHUNK) {
      length = await this.redis.rpush(
        key,
        ...messages.slice(i, i + UNPACK_CHUNK).map(encodeMessage),
      );
    }
    return length;
  }

  /**
   * Drops the oldest whole groups while history's estimated tokens exceed
   * `maxTokens`, keeping the last `keepLast` groups whatever they cost. A
   * message appended meanwhile is never lost; a compaction racing another
   * retries on what the other left.
   */
  async compact(address: ConversationAddress, limits: CompactionLimits): Promise<CompactionResult> {
    checkLimits(limits);
    const keys = this.keys.conversation(address);
    let tokens = 0;
    for (let attempt = 0; attempt < COMPACTION_ATTEMPTS; attempt++) {
      const [entries, trimmed] = (await runTransaction(
        this.redis.multi().lrange(keys.history, 0, -1).get(keys.historyTrimmed),
      )) as [string[], string | null];
      const plan = planCompaction(entries, limits);
      tokens = plan.tokens;
      if (plan.drop === 0) return { dropped: 0, tokens };
      const args = [trimmed ?? "0", entries.length, plan.drop];
      const done = await trimHead.run(this.redis, [keys.history, keys.historyTrimmed], args);
      if (done === 1) return { dropped: plan.drop, tokens };
    }
    this.warnings.warn(
      `${keys.history} contended`,
      `Gave up compacting ${keys.history} after ${COMPACTION_ATTEMPTS} attempts raced other compactions; the next turn tries again.`,
    );
    return { dropped: 0, tokens };
  }
}

function checkLimits({ maxTokens, keepLast }: CompactionLimits): void {
  if (!Number.isFinite(maxTokens) || maxTokens < 0) {
    throw new StoreInputError(
      `maxTokens must be a non-negative number of tokens, not ${maxTokens}.`,
    );
  }
  if (!Number.isInteger(keepLast) || keepLast < 0) {
    throw new StoreInputError(
      `keepLast must be a whole number of message groups (0 or more), not ${keepLast}.`,
    );
  }
}
