import { randomUUID } from "node:crypto";
import type { Checkpoint } from "../core/agent/checkpoint.ts";
import type { TurnResult } from "../core/agent/loop.ts";
import { type ChatMessage, ZERO_USAGE } from "../core/agent/messages.ts";
import { planTake } from "../core/agent/queue-mode.ts";
import type { ApprovalDecision } from "../core/approvals/approval.ts";
import type { Capabilities } from "../core/availability/capabilities.ts";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../core/conversation.ts";
import type { Activity } from "../core/delivery/activity.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import { targetOf } from "../delivery/delivery.ts";
import { openTurnStream } from "../delivery/stream-state.ts";
import { TurnStatus } from "../delivery/turn-status.ts";
import { beforeTurn, noteTurnEnd, traceTurn } from "../observability/tracing-turn.ts";
import type { HistoryReading } from "../store/index.ts";
import { encodeMessage } from "../store/message-json.ts";
import { begunAt, countPickup, stalled, unbegunAt } from "../store/pickups.ts";
import { closeRequest, openWait, wakeParked } from "./approval-wait.ts";
import { CheckpointWrites } from "./checkpoint-writes.ts";
import { type ConversationState, conversationCapabilities, freezeState } from "./contract.ts";
import { askInWindow, foldsBursts, sleepOrLose } from "./quiet-window.ts";
import { giveUp, giveUpUnbegun } from "./resume.ts";
import { dropStoppedRuns, firstStoppedRun } from "./scheduled-runs.ts";
import type { Snapshot } from "./snapshot.ts";
import {
  countParked,
  countShared,
  deliverResult,
  type Spent,
  spentOn,
  usageSubject,
} from "./turn-end.ts";
import {
  choicesOf,
  LostLeaseError,
  type TurnChoices,
  type TurnEnvironment,
} from "./turn-environment.ts";
import { type LoopTurn, runAgentLoop } from "./turn-loop.ts";
import type { TurnWatch } from "./turn-signals.ts";
import { readUserMessages } from "./user-messages.ts";

/**
 * One conversation's turn, from the snapshot its boundary read to the inbox
 * trim that ends it. Its life, in the order of this file:
 *
 * - the drain (drain.ts) looks at the conversation, one Turn per look,
 *   while this worker holds the lease;
 * - {@link Turn.take}: resume the checkpointed turn (waking it if it was
 *   parked on an approval), or begin one from the inbox's messages; either
 *   is given up instead when it keeps failing in place (resume.ts);
 * - the run: freeze the tools, open the stream, run the agent loop
 *   (turn-loop.ts), beside the quiet window for a turn that began inside
 *   it (quiet-window.ts);
 * - the checkpoint writes the loop makes as it goes (calls, steps, steering:
 *   checkpoint-writes.ts);
 * - the end: park on an approval request, or deliver (or mark cut short),
 *   then {@link Turn.end} trims the inbox and counts the usage (turn-end.ts).
 */

/** The lease a turn runs under: its token, its loss, and the wait the drain opened a moment ago. */
interface Lease {
  readonly token: string;
  readonly signal: AbortSignal;
  readonly opened: string | undefined;
}

/** What a parked turn's status shows until its request is decided. */
const WAITING: Activity = { kind: "approval" };

/** Text with something to show (a streamed draft of whitespace alone is not sent). */
const VISIBLE = /\S/;

/**
 * One turn of one conversation. Made from a snapshot by the drain; its
 * fields are the turn's state as it moves on, its methods the steps.
 */
export class Turn {
  readonly env: TurnEnvironment;
  /** The intent, the scope layers and the settings, as the boundary read them. */
  readonly state: ConversationState;
  /** What people chose (`/queue`, `/model`), read at this boundary like every change they make. */
  readonly choices: TurnChoices;
  /** The turn's own messages (steered ones join the checkpoint's count, not this list). */
  #pending: readonly InboundMessage[];
  #history: HistoryReading;
  /** The checkpoint as last written, and the writes that move it on. */
  readonly #writes: CheckpointWrites;
  /** Frozen when the turn began in this run; a resumed turn freezes anew when it runs. */
  #contract: TurnContract | undefined;
  /** Whether this turn's tools differ from the conversation's last turn's (a turn begun in this run). */
  #contractChanged: Promise<boolean> | undefined;
  /** The turn's capabilities, for its model: steered files are read and images sent with them. */
  #capabilities: Capabilities | undefined;
  #watch: TurnWatch | undefined;
  /** What the inbox trim that ends the turn takes, and counts. */
  #consumed = 0;
  #spent: Spent | undefined;
  /** Set for a turn that began inside its quiet window: the window closes beside the model (see quiet-window.ts). */
  #inWindow = false;
  /** What this run's child turns (`ask_agent`) spent on their models: counted into the turn's usage. */
  readonly #childUsage = { usage: ZERO_USAGE };
  /**
   * Whether text of the answer has reached the person: handed to the stream
   * by this run, or shown by a crashed one. From then on a failing model
   * request ends the turn with its note; it never moves to a fallback model.
   */
  #answerShown = false;

  constructor(
    env: TurnEnvironment,
    readonly address: ConversationAddress,
    snap: Snapshot,
    private readonly lease: Lease,
  ) {
    // One registry per turn: a tool list that changes mid-turn applies at the next boundary.
    this.env = { ...env, registry: env.registry.snapshot() };
    this.choices = choicesOf(env, address, snap.state.settings);
    this.state = snap.state;
    this.#pending = snap.pending;
    this.#history = snap.history;
    this.#writes = new CheckpointWrites(env.store, address, lease.signal, snap.checkpoint);
  }

  /** The checkpoint as last written: the snapshot's for a resumed turn, else there from {@link #begin} on. */
  get checkpoint(): Checkpoint {
    return this.#writes.checkpoint;
  }

  // ─── Taking: resume, or begin ─────────────────────────────────────────────

  /**
   * The turn the snapshot calls for: a checkpointed one resumed, else the
   * inbox's messages as a new one; either is given up instead when it keeps
   * failing in place (see MAX_STALLED_PICKUPS). "idle" when there is nothing
   * to do, "again" to look at the inbox afresh (a quiet window passed, or
   * messages were given up), "asked" when the turn began waiting for
   * approval, "ended" when {@link end} is next.
   */
  async take(): Promise<"idle" | "again" | "parked" | "asked" | "ended"> {
    // Until the turn begins, the checkpoint is the snapshot's: there only for a turn to resume.
    const stored = this.#writes.checkpoint as Checkpoint | undefined;
    if (stored) return this.#resume(stored);
    if (this.#pending.length === 0) return "idle";
    const behaviour = this.choices.behaviour;
    let plan = planTake(this.#pending, behaviour, Date.now());
    if ("waitMs" in plan) {
      if (!foldsBursts(behaviour) || !this.env.signals) {
        // The quiet window: more of a burst may be on its way; look again when it has passed.
        await sleepOrLose(plan.waitMs, this.lease.signal);
        return "again";
      }
      // Start now; the window closes beside the model, and lines that come meanwhile fold in.
      this.#inWindow = true;
      plan = { take: this.#pending.length };
    }
    // A scheduled run whose schedule stopped since its tick is dropped at the head, and
    // never taken behind a person's message: that turn ends before it.
    const stopped = await firstStoppedRun(this.env, this.#pending.slice(0, plan.take));
    if (stopped === 0) {
      await dropStoppedRuns(this.env, this.address, this.#pending, this.lease.token);
      return "again";
    }
    const take = stopped ?? plan.take;
    this.#pending = this.#pending.slice(0, take);
    // Counted before the files are read: a file that kills its worker is given up like any turn.
    const pickup = await this.#countPickup(unbegunAt(this.#pending), take);
    if (stalled(pickup)) {
      // Only what the first crashed pickup took: a message that came since gets its own turn.
      const given = this.#pending.slice(0, pickup.took);
      await giveUpUnbegun(this.env, this.address, given, this.lease.token);
      return "again";
    }
    await beforeTurn(this.#pending, () => this.#begin());
    return this.#run();
  }

  async #resume(checkpoint: Checkpoint): Promise<"parked" | "ended" | "asked"> {
    const { env, address } = this;
    let decision: ApprovalDecision | undefined;
    if (checkpoint.approval) {
      // Before the pickup is counted: a parked turn woken many times (by messages, by
      // clicks that change nothing) is not stuck, and must never be given up as stalled.
      const woken = await wakeParked(env, address, {
        checkpoint: { ...checkpoint, approval: checkpoint.approval },
        pending: this.#pending,
        token: this.lease.token,
        choices: this.choices,
        fresh: this.lease.opened === checkpoint.approval.id,
      });
      if (woken.kind === "parked") return "parked";
      decision = woken.decision;
    }
    this.#pending = this.#pending.slice(0, checkpoint.inboxCount);
    if (stalled(await this.#countPickup(begunAt(checkpoint), checkpoint.inboxCount))) {
      await giveUp(env, address, { checkpoint, pending: this.#pending, history: this.#history });
      this.#consumed = checkpoint.inboxCount;
      return "ended";
    }
    return this.#run(decision);
  }

  #countPickup(at: string, takes: number) {
    const { env, address, lease } = this;
    return countPickup(env.inbox.redis, env.store.keys, address, { at, token: lease.token, takes });
  }

  /**
   * Begins the turn: the person's messages join history and the first
   * checkpoint is written (see CheckpointWrites.begin: issued, not waited for).
   */
  async #begin(): Promise<void> {
    const { env, address } = this;
    const history = await env.store.history.compactRead(address, this.#history, env.history);
    // The files are read for the model this turn runs on, as its contract is frozen for it.
    const capabilities = conversationCapabilities(env, address, this.state);
    const read = await this.#readMessages(this.#pending, capabilities);
    const input = read.messages;
    const contract = freezeState(env, address, this.state);
    const checkpoint: Checkpoint = {
      v: 1,
      turnId: randomUUID(),
      step: 1,
      historyStart: history.raw.length,
      inboxCount: this.#pending.length,
      contractHash: contract.hash,
      loaded: [],
      delivered: [],
      ...(read.records.length > 0 ? { attachments: read.records } : {}),
    };
    this.#contractChanged = this.#writes.begin(input, checkpoint);
    this.#contract = contract;
    this.#history = {
      raw: [...history.raw, ...input.map(encodeMessage)],
      trimmed: history.trimmed,
      messages: [...history.messages, ...input],
    };
  }

  #readMessages(messages: readonly InboundMessage[], capabilities: Capabilities) {
    return readUserMessages(this.env, this.address, messages, capabilities, this.lease.signal);
  }

  // ─── The run ──────────────────────────────────────────────────────────────

  /** Runs the taken turn, traced, from its start (new or resumed) to its answer or its ask. */
  #run(decision?: ApprovalDecision): Promise<"ended" | "asked"> {
    const traced = {
      address: this.address,
      pending: this.#pending,
      resumed: !this.#contract,
      queueMode: this.choices.behaviour.mode,
    };
    return traceTurn(traced, () => this.#runTraced(decision));
  }

  /** @param decision the decision on the approval request the turn was parked on */
  async #runTraced(decision: ApprovalDecision | undefined): Promise<"ended" | "asked"> {
    const { env, address } = this;
    const started = Date.now();
    const checkpoint = this.checkpoint;
    const pending = this.#pending;
    const resumed = this.#contract === undefined;
    let contract = this.#contract ?? freezeState(env, address, this.state, checkpoint.loaded);
    if (checkpoint.contractHash !== contract.hash) {
      env.logger.warn(
        "the tools changed while this turn was interrupted; it resumes with the current ones",
        { conversation: conversationKey(address), turnId: checkpoint.turnId },
      );
    }
    // Resumed with a decision: the request shows it (once) before any call of the step runs.
    const wait = checkpoint.approval;
    if (wait && decision) {
      contract = await closeRequest(env, address, checkpoint, pending, decision, contract);
    }
    const outbound = env.outbounds[address.platform];
    const target = targetOf(address, pending.at(-1));
    const { signal } = this.lease;
    const run = {
      turnId: checkpoint.turnId,
      resumed,
      signal,
      leaseToken: this.lease.token,
      stored: () => this.#writes.durable(),
    };
    const status = outbound
      ? await TurnStatus.open(env, outbound, { address, target }, run)
      : undefined;
    const recipient = pending.at(-1)?.user;
    const stream = await openTurnStream(
      env,
      address,
      checkpoint.turnId,
      target,
      resumed,
      signal,
      recipient,
    );
    this.#capabilities = conversationCapabilities(env, address, this.state);
    this.#answerShown = stream.shown;
    // The streamed message is posted under this turn's id: the turn must be stored first.
    if (stream.streamer) await this.#writes.durable();
    const watch = env.signals?.watch(address, checkpoint.turnId);
    this.#watch = watch;
    let result: TurnResult;
    let streamRef = stream.ref;
    try {
      if (resumed && env.signals && watch) {
        // A stop or interrupt may have come while no worker ran this turn.
        const found = await env.signals.boundary(address, checkpoint.turnId, 0, false);
        if (found.signal) watch.abort(found.signal);
        // Cancelled by a message in the interrupt mode: the turn ends as interrupted ones do.
        if (decision?.verdict === "cancelled" && !watch.signal.aborted) watch.abort("interrupt");
      }
      const approval =
        wait && decision
          ? {
              wait,
              decision,
              claim: (call: { id: string }) => env.store.approvals.claim(address, wait.id, call.id),
            }
          : undefined;
      const show = (text: string) => {
        if (stream.streamer && VISIBLE.test(text)) this.#answerShown = true;
        stream.streamer?.update(text);
        // A draft showing the answer is the sign of work: typing beside it would add nothing.
        if (stream.draft && VISIBLE.test(text)) status?.answerShowing();
      };
      result = this.#inWindow
        ? await this.#askInWindow(contract, status, show, stream.draft === true)
        : await runAgentLoop(this.#loopTurn(), contract, approval, status, show, signal);
      // The text streamed before the ask stays shown, whole, while the turn waits.
      if (result.stop === "awaiting_approval") {
        await stream.streamer?.flush();
        await stream.pause?.();
      }
    } finally {
      status?.pause();
      watch?.done();
      streamRef = (await stream.streamer?.close()) ?? streamRef;
    }
    // A turn whose lease was lost mid-way (its model call was aborted) delivers nothing:
    // the worker that took the conversation over answers instead.
    if (signal.aborted) throw new LostLeaseError("lease lost before delivery");
    // Every step is stored before the answer leaves, so a crash from here on resumes at delivery.
    await this.#writes.durable();
    // A turn that reached no model (none is configured) spent nothing: /usage and the budgets count it not at all.
    const reachedModel = result.error?.kind !== "unconfigured";
    if (result.stop === "awaiting_approval") {
      await this.#park(result, reachedModel);
      await status?.end(WAITING);
      return "asked";
    }
    const ending = {
      checkpoint: this.checkpoint,
      pending: this.#pending,
      choices: this.choices,
      watch,
    };
    const finishStream = stream.finish;
    await deliverResult(env, address, ending, result, {
      contract,
      streamRef,
      finishStream,
      resumed,
      status,
    });
    await status?.end();
    noteTurnEnd(contract.hash, result);
    env.observe?.turn?.({
      address,
      result,
      outcome: result.stop,
      ms: Date.now() - started,
      contractChanged: (await this.#contractChanged) ?? false,
      turnId: this.checkpoint.turnId,
    });
    this.#consumed = this.checkpoint.inboxCount;
    if (reachedModel) this.#spent = spentOn(result, this.choices);
    return "ended";
  }

  /** The agent loop beside the quiet window the turn began inside (see quiet-window.ts). */
  #askInWindow(
    contract: TurnContract,
    status: TurnStatus | undefined,
    show: (text: string) => void,
    draft: boolean,
  ): Promise<TurnResult> {
    const { env, address } = this;
    const windowed = {
      signals: env.signals as NonNullable<TurnEnvironment["signals"]>,
      address,
      behaviour: this.choices.behaviour,
      lease: this.lease.signal,
      writes: this.#writes,
      watch: this.#watch,
      pending: () => this.#pending,
      ask: (onText: (text: string) => void, signal: AbortSignal) =>
        runAgentLoop(this.#loopTurn(), contract, undefined, status, onText, signal),
      fold: (arrived: readonly InboundMessage[]) => this.#fold(arrived),
    };
    return askInWindow(windowed, show, draft);
  }

  /** Lines that came inside the quiet window join the turn, stored before its request starts over. */
  async #fold(arrived: readonly InboundMessage[]): Promise<void> {
    const messages = await this.#storeArrived(arrived);
    this.#pending = [...this.#pending, ...arrived];
    this.#history = {
      ...this.#history,
      raw: [...this.#history.raw, ...messages.map(encodeMessage)],
      messages: [...this.#history.messages, ...messages],
    };
  }

  /** This turn as the agent loop runs over it: its history, tools and checkpoint (see turn-loop.ts). */
  #loopTurn(): LoopTurn {
    return {
      env: this.env,
      address: this.address,
      state: this.state,
      choices: this.choices,
      writes: this.#writes,
      history: this.#history,
      pending: this.#pending,
      capabilities: this.#runCapabilities(),
      watch: this.#watch,
      answerShown: () => this.#answerShown,
      steer: () => this.#steer(),
      childUsage: this.#childUsage,
    };
  }

  /** The capabilities the run started with (see {@link #runTraced}). */
  #runCapabilities(): Capabilities {
    this.#capabilities ??= conversationCapabilities(this.env, this.address, this.state);
    return this.#capabilities;
  }

  /**
   * At a step boundary in the `steer` mode: the messages that arrived since
   * the turn took its own join it, stored with the checkpoint that counts
   * them as consumed (a turn resumed after a crash has them once, in order).
   * A stop or interrupt found there is handed to the turn's watch instead.
   */
  async #steer(): Promise<readonly ChatMessage[]> {
    this.#writes.checkLease();
    const signals = this.env.signals;
    if (!signals) return [];
    const current = this.checkpoint;
    const found = await signals.boundary(this.address, current.turnId, current.inboxCount, true);
    if (found.signal) {
      this.#watch?.abort(found.signal);
      return [];
    }
    if (found.arrived.length === 0) return [];
    return this.#storeArrived(found.arrived.map((raw) => JSON.parse(raw) as InboundMessage));
  }

  /**
   * Messages that joined the running turn (steered, or folded in from the
   * quiet window), with their attachments read, stored with the checkpoint
   * that counts them as consumed (see CheckpointWrites.append).
   */
  async #storeArrived(arrived: readonly InboundMessage[]): Promise<ChatMessage[]> {
    const { messages, records } = await this.#readMessages(arrived, this.#runCapabilities());
    await this.#writes.append(messages, records);
    return messages;
  }

  // ─── The end ──────────────────────────────────────────────────────────────

  /**
   * Opens the approval wait the loop stopped at. The text streamed before the
   * ask stays in the streamed message, which the answer replaces by an edit
   * once the turn resumes (the same message under the same key): one message
   * for the answer, the request posted below it. What the model cost so far
   * is counted now, once by the wait's id; the resumed run counts the rest.
   */
  async #park(result: TurnResult, reachedModel: boolean): Promise<void> {
    const { env, address } = this;
    const requester = this.#pending.at(-1);
    const opened = await openWait(env, address, this.#writes, result.pending ?? [], requester);
    if (!reachedModel) return;
    const subject = usageSubject(address, this.#pending);
    await countParked(env, subject, opened.id, spentOn(result, this.choices));
  }

  /**
   * Ends the turn in the inbox: the messages it answered (steered ones too)
   * leave it, and its usage is counted for the conversation by the same
   * script; the workspace and the person follow. Returns how many messages
   * are left (0: the lease was let go with them).
   */
  async end(): Promise<number> {
    const { env, address } = this;
    const spent = this.#spent;
    const subject = usageSubject(address, this.#pending);
    const counting = spent
      ? env.store.usage.conversationCounting(address, spent.usage, spent.costMicros, spent.now)
      : undefined;
    // The messages the turn answered come back from the trim: their token-budget
    // reservations are settled with the turn's usage.
    const { left, answered } = await env.inbox.finish(
      address,
      this.lease.token,
      this.#consumed,
      counting,
    );
    if (left === -1) throw new LostLeaseError("lease lost before the inbox was trimmed");
    if (spent) await countShared(env, subject, spent, answered);
    return left;
  }
}
