import type { AttachmentRecord, Checkpoint, ChildCheckpoint } from "../core/agent/checkpoint.ts";
import type { TurnInput } from "../core/agent/loop.ts";
import type { ChatMessage } from "../core/agent/messages.ts";
import type { ApprovalWait } from "../core/approvals/approval.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import type { Store } from "../store/index.ts";
import { LostLeaseError } from "./turn-environment.ts";

/** A step the loop commits. */
type Step = Parameters<TurnInput["commit"]>[0];

/**
 * A turn's checkpoint as last written, and the writes that move it forward
 * for the agent loop: the calls of a step with effects, stored before they
 * run, and each step's messages with the next checkpoint, in one guarded
 * script. A write that finds the turn taken over (or the lease lost) stops
 * the turn.
 *
 * Writes go out at once, in order on the connection (a step's commit is in
 * Redis before the next step's model call could end), but the turn waits
 * for them only where something outside the conversation is about to
 * happen: a tool with effects runs, or the answer is delivered (durable).
 * Every write is guarded by the one before it (same turn, expected step),
 * so one refused write makes every later one refused too, and `durable`
 * throws.
 */
export class CheckpointWrites {
  #checkpoint: Checkpoint | undefined;
  /** Settles when every checkpoint write issued so far has been checked (see {@link durable}). */
  #written: Promise<void> = Promise.resolve();
  /**
   * While the quiet window is open: settles when it closes, and rejects when
   * lines came that start the request over. Every write that moves the
   * checkpoint on waits for it, so nothing of a request that is dropped is
   * stored, and no tool with effects runs for it. `committing` sees each
   * step the loop commits meanwhile (was it the answer?).
   */
  #held: { readonly closed: Promise<void>; readonly committing: (step: Step) => void } | undefined;

  constructor(
    private readonly store: Store,
    private readonly address: ConversationAddress,
    /** The lease's signal: aborted, it stops every write. */
    private readonly lease: AbortSignal,
    /** The snapshot's checkpoint, for a resumed turn; a new one has it from {@link begin} on. */
    checkpoint: Checkpoint | undefined,
  ) {
    this.#checkpoint = checkpoint;
  }

  /** The checkpoint as last written. */
  get checkpoint(): Checkpoint {
    // Every step that reads it runs after the turn was resumed or began.
    return this.#checkpoint as Checkpoint;
  }

  /**
   * Begins the turn: the person's messages join history and the checkpoint is
   * written, in one script. The contract's hash is remembered per
   * conversation at the same time, for the "contract changed" metric: the
   * returned promise says whether this turn's tools differ from the
   * conversation's last turn's. The write is issued, not waited for: the
   * turn's next writes queue behind it on the connection and are guarded by
   * it, and {@link durable} checks it before anything leaves the conversation.
   */
  begin(input: readonly ChatMessage[], checkpoint: Checkpoint): Promise<boolean> {
    const write = this.store.turns.beginTurn(this.address, input, checkpoint);
    this.#issue(
      write.then(({ began }) => began),
      "another worker began this turn",
    );
    this.#checkpoint = checkpoint;
    return write.then(
      ({ previousContractHash }) =>
        previousContractHash !== null && previousContractHash !== checkpoint.contractHash,
      () => false,
    );
  }

  /** Waits until every write issued so far is stored; throws LostLeaseError if one was refused. */
  async durable(): Promise<void> {
    await this.#written;
    this.checkLease();
  }

  readonly recordCalls: NonNullable<TurnInput["recordCalls"]> = async (step, message) => {
    await this.#held?.closed;
    this.checkLease();
    const current = this.checkpoint;
    const next: Checkpoint = { ...current, calling: { step, message } };
    const expected = { turnId: current.turnId, step: current.step };
    this.#issue(this.store.turns.writeCheckpoint(this.address, next, expected));
    this.#checkpoint = next;
    // The calls must be stored before a tool with effects runs.
    await this.durable();
  };

  /**
   * Stores that the step's recorded calls wait for a decision: the turn is
   * parked from here on (see src/turn/approval-wait.ts). Waits for the
   * write: the request is posted only for a stored wait.
   */
  async awaitApproval(wait: ApprovalWait): Promise<Checkpoint> {
    this.checkLease();
    const current = this.checkpoint;
    const next: Checkpoint = { ...current, approval: wait };
    const expected = { turnId: current.turnId, step: current.step };
    this.#issue(this.store.turns.writeCheckpoint(this.address, next, expected));
    this.#checkpoint = next;
    await this.durable();
    return next;
  }

  readonly commit: TurnInput["commit"] = async (step) => {
    const held = this.#held;
    held?.committing(step);
    await held?.closed;
    this.checkLease();
    const current = this.checkpoint;
    const newLoads = step.loaded.filter((id) => !current.loaded.includes(id));
    // The step's calls are in history now; the record of them (their wait, their children) is done with.
    const { calling: _done, approval: _decided, children: _answered, ...rest } = current;
    const next: Checkpoint = {
      ...rest,
      step: step.step + 1,
      loaded: step.loaded,
      contractHash: step.contractHash,
      ...(step.files?.length ? { files: [...(current.files ?? []), ...step.files] } : {}),
    };
    this.#issue(this.store.turns.commitStep(this.address, step.messages, next));
    this.#checkpoint = next;
    // Discovery loads stay mounted for the rest of the conversation, once the step that loaded them is stored.
    if (newLoads.length > 0) {
      const mounted = this.#written.then(async () => {
        await this.store.intent.apply(this.address, { kind: "mount", ids: newLoads });
      });
      mounted.catch(() => {});
      this.#written = mounted;
    }
  };

  /**
   * Stores a child turn's progress (`ask_agent`) under this turn's
   * checkpoint, guarded like every write of the step; `durable` waits for
   * it (a child's calls with effects are about to run).
   */
  async storeChild(path: string, child: ChildCheckpoint, durable: boolean): Promise<void> {
    await this.#held?.closed;
    this.checkLease();
    const current = this.checkpoint;
    const next: Checkpoint = { ...current, children: { ...current.children, [path]: child } };
    const expected = { turnId: current.turnId, step: current.step };
    this.#issue(this.store.turns.writeCheckpoint(this.address, next, expected));
    this.#checkpoint = next;
    if (durable) await this.durable();
  }

  /**
   * Stores messages that joined the running turn (steered, or folded in from
   * the quiet window) with the checkpoint that counts them as consumed, and
   * the records of their files. It waits for the write, so a crash cannot
   * drop them: a resumed turn has them once, in order.
   */
  async append(messages: readonly ChatMessage[], records: readonly AttachmentRecord[]) {
    const current = this.checkpoint;
    const next: Checkpoint = {
      ...current,
      inboxCount: current.inboxCount + messages.length,
      ...(records.length > 0 ? { attachments: [...(current.attachments ?? []), ...records] } : {}),
    };
    this.#issue(this.store.turns.appendToTurn(this.address, messages, next));
    this.#checkpoint = next;
    await this.durable();
  }

  /**
   * Holds the writes that move the checkpoint on until `closed` settles (see
   * quiet-window.ts), telling `committing` of each step committed meanwhile;
   * {@link release} lets them go.
   */
  hold(closed: Promise<void>, committing: (step: Step) => void): void {
    this.#held = { closed, committing };
  }

  release(): void {
    this.#held = undefined;
  }

  checkLease(): void {
    if (this.lease.aborted) throw new LostLeaseError("lease lost");
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
}
