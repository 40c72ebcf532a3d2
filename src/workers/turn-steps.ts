import type { Checkpoint } from "../core/agent/checkpoint.ts";
import type { ConversationAddress, InboundMessage } from "../core/agent/inbound.ts";
import type { TurnInput } from "../core/agent/loop.ts";
import type { ChatMessage } from "../core/agent/messages.ts";
import type { ApprovalWait } from "../core/approvals/approval.ts";
import type { Capabilities } from "../core/availability/capabilities.ts";
import { attachmentRecord, readAttachments, userMessage } from "./turn-begin.ts";
import { LostLeaseError, type TurnEnvironment } from "./turn-environment.ts";
import type { TurnWatch } from "./turn-signals.ts";

/**
 * The writes that move a turn's checkpoint forward, for the agent loop:
 * the calls of a step with effects, stored before they run, and each step's
 * messages with the next checkpoint, in one guarded script. A write that
 * finds the turn taken over (or the lease lost) stops the turn.
 *
 * Writes go out at once, in order on the connection (a step's commit is in
 * Redis before the next step's model call could end), but the turn waits for
 * them only where something outside the conversation is about to happen: a
 * tool with effects runs, or the answer is delivered ({@link durable}).
 * Every write is guarded by the one before it (same turn, expected step), so
 * one refused write makes every later one refused too, and `durable` throws.
 */
export class TurnSteps {
  #checkpoint: Checkpoint;
  /** Settles when every write issued so far has been checked. */
  #written: Promise<void> = Promise.resolve();

  constructor(
    private readonly env: TurnEnvironment,
    private readonly address: ConversationAddress,
    checkpoint: Checkpoint,
    private readonly signal: AbortSignal,
    /** The turn's capabilities, for its model: steered messages' files are read with them. */
    private readonly capabilities: Capabilities,
    /** The turn's begin, issued but not waited for (a turn that began in this run). */
    begun?: Promise<boolean>,
  ) {
    this.#checkpoint = checkpoint;
    if (begun) this.#issue(begun, "another worker began this turn");
  }

  /** The checkpoint as last written. */
  get checkpoint(): Checkpoint {
    return this.#checkpoint;
  }

  /** Waits until every write issued so far is stored; throws LostLeaseError if one was refused. */
  async durable(): Promise<void> {
    await this.#written;
    this.#checkLease();
  }

  readonly recordCalls: NonNullable<TurnInput["recordCalls"]> = async (step, message) => {
    this.#checkLease();
    const current = this.#checkpoint;
    const next: Checkpoint = { ...current, calling: { step, message } };
    const expected = { turnId: current.turnId, step: current.step };
    this.#issue(this.env.store.turns.writeCheckpoint(this.address, next, expected));
    this.#checkpoint = next;
    // The calls must be stored before a tool with effects runs.
    await this.durable();
  };

  /**
   * Stores that the step's recorded calls wait for a decision: the turn is
   * parked from here on (see src/workers/approval-wait.ts). Waits for the
   * write: the request is posted only for a stored wait.
   */
  async awaitApproval(wait: ApprovalWait): Promise<Checkpoint> {
    this.#checkLease();
    const current = this.#checkpoint;
    const next: Checkpoint = { ...current, approval: wait };
    const expected = { turnId: current.turnId, step: current.step };
    this.#issue(this.env.store.turns.writeCheckpoint(this.address, next, expected));
    this.#checkpoint = next;
    await this.durable();
    return next;
  }

  readonly commit: TurnInput["commit"] = async (step) => {
    this.#checkLease();
    const current = this.#checkpoint;
    const newLoads = step.loaded.filter((id) => !current.loaded.includes(id));
    // The step's calls are in history now; the record of them (and of their wait) is done with.
    const { calling: _done, approval: _decided, ...rest } = current;
    const next: Checkpoint = {
      ...rest,
      step: step.step + 1,
      loaded: step.loaded,
      contractHash: step.contractHash,
      ...(step.files?.length ? { files: [...(current.files ?? []), ...step.files] } : {}),
    };
    this.#issue(this.env.store.turns.commitStep(this.address, step.messages, next));
    this.#checkpoint = next;
    // Discovery loads stay mounted for the rest of the conversation, once the step that loaded them is stored.
    if (newLoads.length > 0) {
      const mounted = this.#written.then(async () => {
        await this.env.store.intent.apply(this.address, { kind: "mount", ids: newLoads });
      });
      mounted.catch(() => {});
      this.#written = mounted;
    }
  };

  /**
   * At a step boundary in the `steer` mode: the messages that arrived since
   * the turn took its own join it, stored with the checkpoint that counts
   * them as consumed (a turn resumed after a crash has them once, in order).
   * A stop or interrupt found there is handed to the turn's watch instead.
   */
  async steer(watch: TurnWatch | undefined): Promise<readonly ChatMessage[]> {
    this.#checkLease();
    const signals = this.env.signals;
    if (!signals) return [];
    const current = this.#checkpoint;
    const found = await signals.boundary(this.address, current.turnId, current.inboxCount, true);
    if (found.signal) {
      watch?.abort(found.signal);
      return [];
    }
    if (found.arrived.length === 0) return [];
    const arrived = found.arrived.map((raw) => JSON.parse(raw) as InboundMessage);
    const read = await readAttachments(
      this.env,
      this.address,
      arrived,
      this.signal,
      this.capabilities,
    );
    const messages = arrived.map((message, i) => userMessage(message, read[i]));
    const records = read.flat().map(attachmentRecord);
    const next: Checkpoint = {
      ...current,
      inboxCount: current.inboxCount + messages.length,
      ...(records.length > 0 ? { attachments: [...(current.attachments ?? []), ...records] } : {}),
    };
    this.#issue(this.env.store.turns.appendToTurn(this.address, messages, next));
    this.#checkpoint = next;
    // The steered messages count as consumed once stored: wait, so a crash cannot drop them.
    await this.durable();
    return messages;
  }

  /** Checks `write` (already issued) after every earlier one; a refusal surfaces at {@link durable}. */
  #issue(write: Promise<boolean>, refused = "another worker took the turn over"): void {
    const checked = Promise.all([this.#written, write]).then(([, ok]) => {
      if (!ok) throw new LostLeaseError(refused);
    });
    // Looked at by durable(); never an unhandled rejection meanwhile.
    checked.catch(() => {});
    this.#written = checked;
  }

  #checkLease(): void {
    if (this.signal.aborted) throw new LostLeaseError("lease lost");
  }
}
