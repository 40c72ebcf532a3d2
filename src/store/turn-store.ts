import type { Checkpoint } from "../core/agent/checkpoint.ts";
import type { ChatMessage } from "../core/agent/messages.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import { decodeCheckpoint, encodeCheckpoint } from "./checkpoint-json.ts";
import { StoreInputError } from "./errors.ts";
import { LuaScript } from "./lua.ts";
import { encodeMessage } from "./message-json.ts";
import { StateStore } from "./state-store.ts";

/** Its scripts: src/store/lua/checkpoint-*.lua, each file saying what it does, its keys and arguments. */
const LUA = LuaScript.set("checkpoint", { commit: 2, begin: 3, clear: 1 });

/** The stored checkpoint a guarded write expects to replace. */
export interface CheckpointExpectation {
  readonly turnId: string;
  readonly step: number;
}

/**
 * Checkpoints of the turn in progress, and the one write that moves a turn
 * forward: a step's messages and its checkpoint together, or neither. A crash
 * between two steps leaves history and checkpoint agreeing, so the turn
 * resumes at the right step and never asks the model twice.
 *
 * @example
 * await turns.writeCheckpoint(address, { ...start, step: 0 }); // the turn begins
 * const ok = await turns.commitStep(address, [assistant, ...results], { ...start, step: 1 });
 * if (!ok) return; // another worker owns this turn now
 */
export class TurnStore extends StateStore {
  /** The stored checkpoint; undefined when there is none or it is damaged (with a warning). */
  async readCheckpoint(address: ConversationAddress): Promise<Checkpoint | undefined> {
    const key = this.keys.conversation(address).checkpoint;
    let raw: string | null;
    try {
      raw = await this.redis.get(key);
    } catch (error) {
      if (!String((error as Error)?.message).startsWith("WRONGTYPE")) throw error;
      this.#damaged(key, `it holds a ${await this.redis.type(key)}, not a string`);
      return undefined;
    }
    return this.fromStored(address, raw);
  }

  /** A checkpoint from its stored JSON fetched elsewhere (a turn snapshot); damage warns and reads as none. */
  fromStored(
    address: ConversationAddress,
    raw: string | null,
    problem?: string,
  ): Checkpoint | undefined {
    const key = this.keys.conversation(address).checkpoint;
    if (problem !== undefined) {
      this.#damaged(key, problem);
      return undefined;
    }
    if (raw === null) return undefined;
    const decoded = decodeCheckpoint(raw);
    if (decoded.problem !== undefined) this.#damaged(key, decoded.problem);
    return decoded.checkpoint;
  }

  /**
   * Begins a turn with the person's messages, in one atomic script: history
   * gains them and the checkpoint (at step 1: the input is stored) appears
   * together, and the conversation's last contract hash is swapped for this
   * turn's (so a metric can count changes). Refuses (writes nothing) while
   * another turn's checkpoint is stored.
   */
  async beginTurn(
    address: ConversationAddress,
    messages: readonly ChatMessage[],
    checkpoint: Checkpoint,
  ): Promise<{ began: boolean; previousContractHash: string | null }> {
    const keys = this.keys.conversation(address);
    const args = [
      encodeCheckpoint(checkpoint),
      checkpoint.contractHash,
      ...messages.map(encodeMessage),
    ];
    const [began, previous] = (await LUA.begin.run(
      this.redis,
      [keys.checkpoint, keys.history, keys.contract],
      args,
    )) as [number, string | null];
    return { began: began === 1, previousContractHash: previous ?? null };
  }

  /**
   * Appends one step's messages to history and stores its checkpoint, in one
   * atomic script. Refuses (returns false, writes nothing) unless the stored
   * checkpoint is of the same turn at the previous step (`checkpoint.step - 1`):
   * a stale worker can never append a step twice or over another turn.
   */
  async commitStep(
    address: ConversationAddress,
    messages: readonly ChatMessage[],
    checkpoint: Checkpoint,
  ): Promise<boolean> {
    if (!Number.isInteger(checkpoint.step) || checkpoint.step < 1) {
      throw new StoreInputError(
        `commitStep needs the checkpoint after the step (step 1 or more), not step ${checkpoint.step}; start a turn with writeCheckpoint at step 0.`,
      );
    }
    const expected = { turnId: checkpoint.turnId, step: checkpoint.step - 1 };
    return this.#guarded(address, checkpoint, expected, messages);
  }

  /**
   * Stores a checkpoint as it is: a turn starting at step 0, or delivery
   * bookkeeping. With `expect`, writes only over that turn at that step and
   * returns false otherwise, as commitStep does.
   */
  async writeCheckpoint(
    address: ConversationAddress,
    checkpoint: Checkpoint,
    expect?: CheckpointExpectation,
  ): Promise<boolean> {
    if (expect !== undefined) return this.#guarded(address, checkpoint, expect, []);
    await this.redis.set(this.keys.conversation(address).checkpoint, encodeCheckpoint(checkpoint));
    return true;
  }

  /**
   * Adds messages to the turn in progress without ending its step (people's
   * messages steered in at a step boundary), with the checkpoint that counts
   * them, in one atomic script; refused (false) unless the stored checkpoint
   * is this turn at this same step.
   */
  async appendToTurn(
    address: ConversationAddress,
    messages: readonly ChatMessage[],
    checkpoint: Checkpoint,
  ): Promise<boolean> {
    const expected = { turnId: checkpoint.turnId, step: checkpoint.step };
    return this.#guarded(address, checkpoint, expected, messages);
  }

  /** Deletes the checkpoint; with `turnId`, only if it still belongs to that turn. */
  async clearCheckpoint(address: ConversationAddress, turnId?: string): Promise<boolean> {
    const key = this.keys.conversation(address).checkpoint;
    if (turnId === undefined) return (await this.redis.del(key)) > 0;
    return (await LUA.clear.run(this.redis, [key], [turnId])) === 1;
  }

  async #guarded(
    address: ConversationAddress,
    checkpoint: Checkpoint,
    expected: CheckpointExpectation,
    messages: readonly ChatMessage[],
  ): Promise<boolean> {
    const keys = this.keys.conversation(address);
    const args = [
      expected.turnId,
      expected.step,
      encodeCheckpoint(checkpoint),
      ...messages.map(encodeMessage),
    ];
    return (await LUA.commit.run(this.redis, [keys.checkpoint, keys.history], args)) === 1;
  }

  #damaged(key: string, problem: string): void {
    this.warnings.warn(
      `${key} ${problem}`,
      `Ignoring the damaged checkpoint ${key} (${problem}); the turn starts over from history.`,
    );
  }
}
