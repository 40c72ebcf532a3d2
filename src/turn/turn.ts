import { randomUUID } from "node:crypto";
import type { AttachmentRecord, Checkpoint, ChildCheckpoint } from "../core/agent/checkpoint.ts";
import { runTurn, type ToolOutcome, type TurnInput, type TurnResult } from "../core/agent/loop.ts";
import {
  addUsage,
  type ChatMessage,
  type ToolCall,
  type Usage,
  ZERO_USAGE,
} from "../core/agent/messages.ts";
import { buildSystemPrompt } from "../core/agent/prompt.ts";
import { planTake } from "../core/agent/queue-mode.ts";
import {
  ASK_AGENT_ID,
  agentsOf,
  DEFAULT_AGENT,
  delegatesBlock,
  delegationLimits,
} from "../core/agents/index.ts";
import type { ApprovalDecision, ApprovalWait } from "../core/approvals/approval.ts";
import { type AttachmentContent, namedOnly, userContent } from "../core/attachments/content.ts";
import { declaredKind } from "../core/attachments/kind.ts";
import { VISION_CAPABILITY } from "../core/attachments/model-vision.ts";
import { withoutImages } from "../core/attachments/unseen-images.ts";
import { type Capabilities, capabilityStatus } from "../core/availability/capabilities.ts";
import { costMicros } from "../core/budget/usage.ts";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
  modelText,
} from "../core/conversation.ts";
import { type Activity, toolActivity } from "../core/delivery/activity.ts";
import type { TurnContract } from "../core/loading/freeze.ts";
import { skillsBlock } from "../core/skills/index.ts";
import type { AnyTool } from "../core/tools/tool.ts";
import { deliver, targetOf } from "../delivery/delivery.ts";
import { openTurnStream, StreamState } from "../delivery/stream-state.ts";
import { TurnStatus } from "../delivery/turn-status.ts";
import { tracedProvider } from "../observability/tracing-model.ts";
import { ToolSpans } from "../observability/tracing-tools.ts";
import { beforeTurn, noteTurnEnd, traceTurn } from "../observability/tracing-turn.ts";
import type { MessageControl } from "../ports/outbound.ts";
import { type TargetGoneError, targetGoneOf } from "../ports/target-gone.ts";
import type { HistoryReading } from "../store/index.ts";
import { encodeMessage } from "../store/message-json.ts";
import { begunAt, countPickup, stalled, unbegunAt } from "../store/pickups.ts";
import type { HeldMessage } from "../store/reservation-store.ts";
import type { UsageSubject } from "../store/usage-store.ts";
import { documentId } from "../tools/attachments/document-store.ts";
import { closeRequest, openWait, wakeParked } from "./approval-wait.ts";
import {
  type ConversationState,
  conversationCapabilities,
  freezeState,
  resolveConversationSkills,
} from "./contract.ts";
import { type DelegationHost, delegate } from "./delegation.ts";
import { foldsBursts, waitForQuiet } from "./quiet-window.ts";
import { giveUp, giveUpUnbegun } from "./resume.ts";
import { dropStoppedRuns, firstStoppedRun } from "./scheduled-runs.ts";
import { type Snapshot, takeSnapshot } from "./snapshot.ts";
import { runTool } from "./tool-runner.ts";
import {
  choicesOf,
  LostLeaseError,
  type TurnChoices,
  type TurnEnvironment,
} from "./turn-environment.ts";
import type { TurnWatch } from "./turn-signals.ts";

/**
 * One conversation's turn, from the snapshot its boundary read to the inbox
 * trim that ends it. Its life, in the order of this file:
 *
 * - the drain ({@link drainConversation}) looks at the conversation, one
 *   Turn per look, while this worker holds the lease;
 * - {@link Turn.take}: resume the checkpointed turn (waking it if it was
 *   parked on an approval), or begin one from the inbox's messages; either
 *   is given up instead when it keeps failing in place;
 * - the run: freeze the tools, open the stream, run the agent loop;
 * - the checkpoint writes the loop makes as it goes (calls, steps, steering);
 * - the end: park on an approval request, or deliver (or mark cut short),
 *   then {@link Turn.end} trims the inbox and counts the usage.
 */

// ─── The drain ──────────────────────────────────────────────────────────────

/**
 * Runs the conversation's turns while this worker holds its lease: resumes a
 * checkpointed turn, else takes everything in the inbox as one turn, until
 * the inbox is empty and the lease is let go (atomically, see Inbox.finish).
 */
export async function drainConversation(
  env: TurnEnvironment,
  address: ConversationAddress,
  leaseToken: string,
  signal: AbortSignal,
  first?: Snapshot,
): Promise<void> {
  let next = first;
  /** The approval wait this drain opened a moment ago: its request is not posted yet. */
  let opened: string | undefined;
  for (;;) {
    if (signal.aborted) throw new LostLeaseError("lease lost");
    const snap = next ?? (await readSnapshot(env, address));
    next = undefined;
    const turn = new Turn(env, address, snap, { token: leaseToken, signal, opened });
    opened = undefined;
    const taken = await turn.take();
    if (taken === "again") continue;
    // Parked on an approval request: the lease is let go, the checkpoint stays.
    if (taken === "parked") return;
    if (taken === "idle") {
      if ((await env.inbox.release(address, leaseToken)) <= 0) return;
      continue;
    }
    // A turn that just began waiting for approval: the next look posts its request and parks it.
    if (taken === "asked") {
      opened = turn.checkpoint.approval?.id;
      continue;
    }
    if ((await turn.end()) === 0) return;
  }
}

async function readSnapshot(env: TurnEnvironment, address: ConversationAddress): Promise<Snapshot> {
  const taken = await takeSnapshot(env.store, env.inbox, address);
  if (!taken.taken) throw new LostLeaseError("lease lost");
  return taken.snapshot;
}

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

/** What a text a signal cut short ends with, as the partial answer shows it. */
const CUT_SHORT = { stop: "_(stopped)_", interrupt: "_(interrupted)_" } as const;

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
  #checkpoint: Checkpoint | undefined;
  /** Frozen when the turn began in this run; a resumed turn freezes anew when it runs. */
  #contract: TurnContract | undefined;
  /** Whether this turn's tools differ from the conversation's last turn's (a turn begun in this run). */
  #contractChanged: Promise<boolean> | undefined;
  /** The turn's capabilities, for its model: steered files are read and images sent with them. */
  #capabilities: Capabilities | undefined;
  #watch: TurnWatch | undefined;
  /** Settles when every checkpoint write issued so far has been checked (see {@link durable}). */
  #written: Promise<void> = Promise.resolve();
  /** What the inbox trim that ends the turn takes, and counts. */
  #consumed = 0;
  #spent: ReturnType<typeof spentOn> | undefined;
  /** Set for a turn that began inside its quiet window: the window closes beside the model (see quiet-window.ts). */
  #inWindow = false;
  /**
   * While the quiet window is open: settles when it closes, and rejects when
   * lines came that start the request over. Every write that moves the
   * checkpoint on waits for it, so nothing of a request that is dropped is
   * stored, and no tool with effects runs for it.
   */
  #windowClosed: Promise<void> | undefined;
  /** The model answered before the window closed: the answer is delivered whole, not streamed first. */
  #answeredInWindow = false;
  /** What this run's child turns (`ask_agent`) spent on their models: counted into the turn's usage. */
  #childUsage: Usage = ZERO_USAGE;
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
    this.#checkpoint = snap.checkpoint;
  }

  /** The checkpoint as last written: the snapshot's for a resumed turn, else there from {@link #begin} on. */
  get checkpoint(): Checkpoint {
    // Every step that reads it runs after take() resumed or began the turn.
    return this.#checkpoint as Checkpoint;
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
    if (this.#checkpoint) return this.#resume(this.#checkpoint);
    if (this.#pending.length === 0) return "idle";
    const behaviour = this.choices.behaviour;
    let plan = planTake(this.#pending, behaviour, Date.now());
    if ("waitMs" in plan) {
      if (!foldsBursts(behaviour) || !this.env.signals) {
        // The quiet window: more of a burst may be on its way; look again when it has passed.
        await waitOrLose(plan.waitMs, this.lease.signal);
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
   * Begins the turn: the person's messages join history and the checkpoint is
   * written, in one script. The contract's hash is remembered per
   * conversation at the same time, for the "contract changed" metric. The
   * write is issued, not waited for: the turn's next writes queue behind it
   * on the connection and are guarded by it, and {@link durable} checks it
   * before anything leaves the conversation.
   */
  async #begin(): Promise<void> {
    const { env, address } = this;
    const history = await env.store.history.compactRead(address, this.#history, env.history);
    // The files are read for the model this turn runs on, as its contract is frozen for it.
    const capabilities = conversationCapabilities(env, address, this.state);
    const read = await this.#readAttachments(this.#pending, capabilities);
    const input = this.#pending.map((message, i) => userMessage(message, read[i]));
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
      ...(read.some((r) => r.length > 0) ? { attachments: read.flat().map(attachmentRecord) } : {}),
    };
    const write = env.store.turns.beginTurn(address, input, checkpoint);
    this.#issue(
      write.then(({ began }) => began),
      "another worker began this turn",
    );
    this.#contractChanged = write.then(
      ({ previousContractHash }) =>
        previousContractHash !== null && previousContractHash !== contract.hash,
      () => false,
    );
    this.#checkpoint = checkpoint;
    this.#contract = contract;
    this.#history = {
      raw: [...history.raw, ...input.map(encodeMessage)],
      trimmed: history.trimmed,
      messages: [...history.messages, ...input],
    };
  }

  /**
   * The files of each message, read by the worker at the turn (never in
   * ingress, which acks fast), with the turn's capabilities (`vision` is the
   * turn's model's). Without a reader they are named only.
   */
  async #readAttachments(
    messages: readonly InboundMessage[],
    capabilities: Capabilities,
  ): Promise<AttachmentContent[][]> {
    const { env, address } = this;
    const all = messages.flatMap((message) => message.attachments);
    if (all.length === 0) return messages.map(() => []);
    // One read for the whole turn: the per-turn total covers every message's files.
    const read = env.attachments
      ? await env.attachments.read(address, all, this.lease.signal, capabilities)
      : all.map((a) => namedOnly(a, declaredKind(a), "named", "this bot does not fetch files"));
    let next = 0;
    return messages.map((message) => {
      const mine = read.slice(next, next + message.attachments.length);
      next += message.attachments.length;
      return [...mine];
    });
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
      stored: () => this.durable(),
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
    if (stream.streamer) await this.durable();
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
        : await this.#ask(contract, approval, status, show, signal);
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
    await this.durable();
    // A turn that reached no model (none is configured) spent nothing: /usage and the budgets count it not at all.
    const reachedModel = result.error?.kind !== "unconfigured";
    if (result.stop === "awaiting_approval") {
      await this.#park(result, reachedModel);
      await status?.end(WAITING);
      return "asked";
    }
    const finishStream = stream.finish;
    try {
      if (result.stop === "interrupted") await this.#markCutShort(streamRef, finishStream, resumed);
      else await this.#deliver(result, { contract, streamRef, finishStream, resumed, status });
    } catch (error) {
      const gone = targetGoneOf(error);
      if (gone === undefined) throw error;
      await this.#targetGone(gone);
    }
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

  /**
   * The agent loop for a turn that began inside its quiet window: the
   * request goes out at once, while what it would show is held until the
   * window closes. Lines that came by then join the turn (stored with the
   * checkpoint that counts them, as steered lines are) and the request
   * starts over with them; with none, the request under way stands.
   *
   * Into a `draft` (a Telegram private chat) the text streams at once: a
   * draft is no message, so a request started over streams its answer into
   * the same draft in place of the first, and nothing is left behind to
   * edit or double. Held, the first words of a model that answers fast
   * waited for the window (up to 400 ms) at low load, where nobody is typing.
   */
  async #askInWindow(
    contract: TurnContract,
    status: TurnStatus | undefined,
    show: (text: string) => void,
    draft: boolean,
  ): Promise<TurnResult> {
    const { env, address, lease } = this;
    const signals = env.signals as NonNullable<TurnEnvironment["signals"]>;
    for (;;) {
      const attempt = new AbortController();
      const relay = () => attempt.abort(lease.signal.reason);
      if (lease.signal.aborted) relay();
      else lease.signal.addEventListener("abort", relay, { once: true });
      let held: string | undefined;
      let quiet = false;
      this.#answeredInWindow = false;
      const onText = (text: string) => {
        if (quiet || draft) show(text);
        else held = text;
      };
      const turn = { turnId: this.checkpoint.turnId, consumed: this.checkpoint.inboxCount };
      const end = waitForQuiet(
        signals,
        address,
        turn,
        this.#pending,
        this.choices.behaviour,
        lease.signal,
      );
      this.#windowClosed = end.then((e) => {
        if (e.kind === "fold") throw new StartedOver();
      });
      this.#windowClosed.catch(() => {});
      const asked = this.#ask(contract, undefined, status, onText, attempt.signal).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      try {
        const closed = await end;
        if (closed.kind === "quiet") {
          if (closed.signal) this.#watch?.abort(closed.signal);
          quiet = true;
          this.#inWindow = false;
          // An answer that is already whole is posted once by its delivery: no preview, no edit.
          if (held !== undefined && !this.#answeredInWindow) show(held);
          const outcome = await asked;
          if ("error" in outcome) throw outcome.error;
          return outcome.result;
        }
        attempt.abort(new StartedOver());
        await asked;
        await this.#fold(closed.arrived);
      } catch (error) {
        attempt.abort(error);
        await asked;
        throw error;
      } finally {
        lease.signal.removeEventListener("abort", relay);
        this.#windowClosed = undefined;
      }
    }
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

  /** The agent loop over this turn's history, tools and checkpoint. */
  #ask(
    contract: TurnContract,
    approval: TurnInput["approval"],
    status: TurnStatus | undefined,
    onText: (text: string) => void,
    signal: AbortSignal,
  ): Promise<TurnResult> {
    const { env, address, choices } = this;
    const checkpoint = this.checkpoint;
    const watch = this.#watch;
    const { before, from } = env.store.history.split(
      address,
      this.#history,
      checkpoint.historyStart,
    );
    const skills = resolveConversationSkills(env, address, this.state);
    const last = this.#pending.at(-1);
    const streaming = Boolean(env.outbounds[address.platform]?.canEdit && env.streamEditMs);
    const steering = choices.behaviour.mode === "steer";
    // Only /stop cuts a running tool short; an interrupt lets it finish and keeps its result.
    const stop = watch ? stopOnly(watch.signal) : undefined;
    const toolSpans = new ToolSpans();
    // The turn's files so far, from the checkpoint: a resumed turn counts what its crashed run kept.
    const tally = { used: (checkpoint.files ?? []).reduce((sum, f) => sum + f.bytes, 0) };
    const files = env.toolFiles ? { files: { store: env.toolFiles, tally } } : {};
    // Images sent while the conversation ran on a vision model stay in history, unsent to one without.
    const vision = capabilityStatus(this.#runCapabilities(), VISION_CAPABILITY);
    const seen = (messages: readonly ChatMessage[]) =>
      vision.available ? messages : withoutImages(messages, vision.reason);
    // One tool call, run with the turn's context; a child turn's calls too, with keys of their own.
    const runOne = (tool: AnyTool, args: unknown, call: ToolCall, callKey: string) =>
      toolSpans.run(tool.id, args, () =>
        runTool(
          tool,
          args,
          call,
          {
            ...address,
            ...(last?.thread !== undefined ? { thread: last.thread } : {}),
            user: last?.user ?? "",
            ...(last?.userName !== undefined ? { userName: last.userName } : {}),
            ...(last?.kind !== undefined ? { kind: last.kind } : {}),
            skills,
            callKey,
          },
          { timeoutMs: env.toolTimeoutMs, ...(stop ? { stop } : {}), ...files },
        ),
      );
    const onToolCall = (name: string, outcome: ToolOutcome, ms: number) => {
      toolSpans.reported(name, outcome, ms);
      env.observe?.toolCall?.(name, outcome, ms);
    };
    const agent = choices.agent.agent;
    const limits = delegationLimits(agent);
    const delegation: DelegationHost = {
      env,
      address,
      state: this.state,
      checkpoint: () => this.checkpoint,
      storeChild: (path, child, durable) => this.#storeChild(path, child, durable),
      runTool: runOne,
      onToolCall,
      spend: (usage) => {
        this.#childUsage = addUsage(this.#childUsage, usage);
      },
      signal,
      ...(stop ? { stop } : {}),
    };
    const root = { agent, levelsLeft: limits.depth, limits };
    return runTurn({
      registry: env.registry,
      contract,
      system: buildSystemPrompt({
        persona: env.persona(address, choices.agent.agent),
        catalog: contract.catalog,
        blocks: [
          skillsBlock(skills.enabled),
          // Whom ask_agent may ask, while it is callable (a person may have switched it off).
          contract.callable.has(ASK_AGENT_ID)
            ? delegatesBlock(choices.agent.agent, agentsOf(env.config()))
            : "",
        ],
      }),
      history: seen(before),
      turn: seen(from),
      step: checkpoint.step - 1,
      loaded: checkpoint.loaded,
      ...(checkpoint.calling?.step === checkpoint.step
        ? { calling: checkpoint.calling.message }
        : {}),
      ...(approval && checkpoint.approval?.step === checkpoint.step ? { approval } : {}),
      provider: tracedProvider(env.provider),
      cacheKey: cacheKeyOf(address, choices.agent.agent.id),
      ...(choices.model !== undefined ? { model: choices.model } : {}),
      ...(choices.agent.agent.fallback !== undefined
        ? { fallback: choices.agent.agent.fallback }
        : {}),
      maxSteps: env.maxSteps,
      now: Date.now,
      signal,
      runTool: (tool, args, call) => {
        const finished = status?.tool(toolActivity(tool.id, args, this.#documentName));
        // A child turn runs inside the call's span: its model requests and tools nest under it.
        const ran =
          tool.id === ASK_AGENT_ID
            ? toolSpans.run(tool.id, args, () => delegate(delegation, root, tool, args, call))
            : runOne(tool, args, call, `${checkpoint.turnId}.${call.id}`);
        return ran.finally(finished);
      },
      onToolCall,
      ...(streaming ? { onText, answerShown: () => this.#answerShown } : {}),
      recordCalls: this.recordCalls,
      commit: this.commit,
      ...(watch ? { interrupt: watch.signal } : {}),
      ...(steering ? { steer: () => this.steer() } : {}),
    }).then((result) => ({ ...result, usage: addUsage(result.usage, this.#childUsage) }));
  }

  /**
   * The name of a document the person sent this turn, by the id
   * `read_attachment` takes: what its status line may show ("is reading
   * report.pdf…"). A document from an earlier turn is shown as "a document".
   */
  readonly #documentName = (id: string): string | undefined => {
    const sent = [
      ...this.#pending.flatMap((message) => message.attachments),
      ...(this.checkpoint.attachments ?? []),
    ];
    return sent.find((file) => documentId(file.ref) === id)?.name;
  };

  /** The capabilities the run started with (see {@link #runTraced}). */
  #runCapabilities(): Capabilities {
    this.#capabilities ??= conversationCapabilities(this.env, this.address, this.state);
    return this.#capabilities;
  }

  // ─── Checkpoint writes ────────────────────────────────────────────────────
  //
  // The writes that move the checkpoint forward, for the agent loop: the
  // calls of a step with effects, stored before they run, and each step's
  // messages with the next checkpoint, in one guarded script. A write that
  // finds the turn taken over (or the lease lost) stops the turn.
  //
  // Writes go out at once, in order on the connection (a step's commit is in
  // Redis before the next step's model call could end), but the turn waits
  // for them only where something outside the conversation is about to
  // happen: a tool with effects runs, or the answer is delivered (durable).
  // Every write is guarded by the one before it (same turn, expected step),
  // so one refused write makes every later one refused too, and `durable`
  // throws.

  /** Waits until every write issued so far is stored; throws LostLeaseError if one was refused. */
  async durable(): Promise<void> {
    await this.#written;
    this.#checkLease();
  }

  readonly recordCalls: NonNullable<TurnInput["recordCalls"]> = async (step, message) => {
    await this.#windowClosed;
    this.#checkLease();
    const current = this.checkpoint;
    const next: Checkpoint = { ...current, calling: { step, message } };
    const expected = { turnId: current.turnId, step: current.step };
    this.#issue(this.env.store.turns.writeCheckpoint(this.address, next, expected));
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
    this.#checkLease();
    const current = this.checkpoint;
    const next: Checkpoint = { ...current, approval: wait };
    const expected = { turnId: current.turnId, step: current.step };
    this.#issue(this.env.store.turns.writeCheckpoint(this.address, next, expected));
    this.#checkpoint = next;
    await this.durable();
    return next;
  }

  readonly commit: TurnInput["commit"] = async (step) => {
    if (this.#windowClosed) {
      const last = step.messages.at(-1);
      this.#answeredInWindow = last?.role === "assistant" && !last.tool_calls?.length;
    }
    await this.#windowClosed;
    this.#checkLease();
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
   * Stores a child turn's progress (`ask_agent`) under this turn's
   * checkpoint, guarded like every write of the step; `durable` waits for
   * it (a child's calls with effects are about to run).
   */
  async #storeChild(path: string, child: ChildCheckpoint, durable: boolean): Promise<void> {
    await this.#windowClosed;
    this.#checkLease();
    const current = this.checkpoint;
    const next: Checkpoint = { ...current, children: { ...current.children, [path]: child } };
    const expected = { turnId: current.turnId, step: current.step };
    this.#issue(this.env.store.turns.writeCheckpoint(this.address, next, expected));
    this.#checkpoint = next;
    if (durable) await this.durable();
  }

  /**
   * At a step boundary in the `steer` mode: the messages that arrived since
   * the turn took its own join it, stored with the checkpoint that counts
   * them as consumed (a turn resumed after a crash has them once, in order).
   * A stop or interrupt found there is handed to the turn's watch instead.
   */
  async steer(): Promise<readonly ChatMessage[]> {
    this.#checkLease();
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
   * that counts them as consumed. It waits for the write, so a crash cannot
   * drop them: a resumed turn has them once, in order.
   */
  async #storeArrived(arrived: readonly InboundMessage[]): Promise<ChatMessage[]> {
    const read = await this.#readAttachments(arrived, this.#runCapabilities());
    const messages = arrived.map((message, i) => userMessage(message, read[i]));
    const records = read.flat().map(attachmentRecord);
    const current = this.checkpoint;
    const next: Checkpoint = {
      ...current,
      inboxCount: current.inboxCount + messages.length,
      ...(records.length > 0 ? { attachments: [...(current.attachments ?? []), ...records] } : {}),
    };
    this.#issue(this.env.store.turns.appendToTurn(this.address, messages, next));
    this.#checkpoint = next;
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
    if (this.lease.signal.aborted) throw new LostLeaseError("lease lost");
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
    const opened = await openWait(env, address, this, result.pending ?? [], this.#pending.at(-1));
    if (!reachedModel) return;
    const { usage, costMicros, now } = spentOn(result, this.choices);
    try {
      await env.store.usage.record(this.#subject(), `ask-${opened.id}`, usage, costMicros, now);
    } catch (error) {
      env.logger.warn("a parked turn's token usage could not be counted", {
        conversation: conversationKey(address),
        error: (error as Error)?.message,
      });
    }
  }

  /** Delivers the answer (its files with it); only a final answer is rated. */
  async #deliver(
    result: TurnResult,
    shown: {
      readonly contract: TurnContract;
      readonly streamRef: string | undefined;
      readonly finishStream:
        | ((text: string, controls?: readonly MessageControl[]) => Promise<void>)
        | undefined;
      readonly resumed: boolean;
      readonly status: TurnStatus | undefined;
    },
  ): Promise<void> {
    const { env, address } = this;
    const { contract, status } = shown;
    await deliver(env, address, this.checkpoint, this.#pending, result.answer, {
      streamRef: shown.streamRef,
      finishStream: shown.finishStream,
      resumed: shown.resumed,
      files: this.checkpoint.files,
      ...(status ? { activity: (doing: Activity) => status.show(doing) } : {}),
      // Only a final answer is rated: not a step-limit note or an error reply.
      ...(result.stop === "answer"
        ? {
            rated: {
              contractHash: contract.hash,
              model: this.choices.model ?? env.model ?? "default",
              promptTokens: result.usage.promptTokens,
              cachedTokens: result.usage.cachedTokens,
              completionTokens: result.usage.completionTokens,
            },
          }
        : {}),
    });
  }

  /**
   * The platform says the conversation is gone for the bot: the answer has
   * nowhere to go, and a retry would meet the same refusal. The turn ends
   * as delivered (its messages leave the inbox), and the process is told,
   * so what keeps speaking there (a schedule) stops.
   */
  async #targetGone(gone: TargetGoneError): Promise<void> {
    const { env, address } = this;
    const fields = { conversation: conversationKey(address), reason: gone.reason };
    env.logger.warn(
      "the platform says this conversation is gone for the bot; the answer is dropped, not retried",
      fields,
    );
    await env
      .onTargetGone?.({ address, messages: this.#pending, error: gone })
      .catch((error: unknown) =>
        env.logger.warn("what speaks into a gone conversation could not be stopped", {
          ...fields,
          error: (error as Error)?.message,
        }),
      );
  }

  /**
   * A turn a signal cut short shows it where it was showing its answer: the
   * streamed partial is edited once to say so (a native stream is finished
   * with it; a Telegram draft's partial is posted). A stopped turn with nothing
   * shown says it stopped; an interrupted one says nothing, since the turn
   * that follows answers.
   */
  async #markCutShort(
    streamRef: string | undefined,
    finishStream: ((text: string) => Promise<void>) | undefined,
    resumed: boolean,
  ): Promise<void> {
    const { env, address } = this;
    const kind = this.#watch?.signal.reason === "stop" ? "stop" : "interrupt";
    const { turnId } = this.checkpoint;
    // A Telegram draft records what it showed with no message: it is posted, cut short.
    const partial = (await new StreamState(env.inbox.redis, env.store.keys).read(address, turnId))
      .text;
    if (partial === undefined && kind === "interrupt") return;
    const text = partial !== undefined ? `${partial}\n\n${CUT_SHORT[kind]}` : "Stopped.";
    await deliver(env, address, this.checkpoint, this.#pending, text, {
      streamRef,
      finishStream,
      resumed,
    });
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
    const subject = this.#subject();
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
    if (spent) await this.#countShared(subject, spent, answered);
    return left;
  }

  /**
   * Counts the turn's usage for the workspace and the person, once the script
   * that ended the turn counted it for the conversation (see Inbox.finish), so
   * `/usage` and the token budgets see every turn once; in the same scripts,
   * the token-budget reservations of the messages it answered give way to
   * that real usage. The answer is already out: a failure to count is logged,
   * not made the person's problem (the reservations expire).
   */
  async #countShared(
    subject: UsageSubject,
    { usage, costMicros, now }: ReturnType<typeof spentOn>,
    answered: readonly HeldMessage[],
  ): Promise<void> {
    const { env } = this;
    try {
      await env.store.reservations.settle(
        env.store.usage.sharedCountings(subject, usage, costMicros, now),
        answered,
      );
    } catch (error) {
      env.logger.warn("a turn's token usage could not be counted", {
        conversation: conversationKey(subject.address),
        error: (error as Error)?.message,
      });
    }
  }

  /** Who the turn's usage is counted for: the conversation, and the person who sent its last message. */
  #subject(): UsageSubject {
    const last = this.#pending.at(-1);
    const user = last?.user ? `${this.address.platform}:${last.user}` : undefined;
    return { address: this.address, user };
  }
}

/**
 * The prompt cache a conversation's requests go to: the conversation's key,
 * with the agent's id when another than `default` answers, so two agents'
 * prompts never share a cache (and a config without agents keeps its keys).
 */
function cacheKeyOf(address: ConversationAddress, agent: string): string {
  const key = conversationKey(address);
  return agent === DEFAULT_AGENT ? key : `${key}#agent:${agent}`;
}

/** What a turn's model calls cost, priced for the model it ran on, as of now. */
function spentOn(result: TurnResult, choices: TurnChoices) {
  return {
    usage: result.usage,
    costMicros: costMicros(result.usage, choices.price),
    now: Date.now(),
  };
}

/** Thrown into a request dropped because lines came inside its quiet window: it starts over with them. */
class StartedOver extends Error {
  override readonly name = "StartedOver";
}

/** Waits, unless the lease is lost meanwhile. */
async function waitOrLose(ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  if (signal.aborted) throw new LostLeaseError("lease lost");
}

/** A signal that aborts only when `signal` aborts for a stop. */
function stopOnly(signal: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const relay = () => {
    if (signal.reason === "stop") controller.abort("stop");
  };
  if (signal.aborted) relay();
  else signal.addEventListener("abort", relay, { once: true });
  return controller.signal;
}

/** What the checkpoint keeps of a file: no bytes, no text, just what became of it. */
function attachmentRecord(content: AttachmentContent): AttachmentRecord {
  return {
    ref: content.ref,
    name: content.name,
    outcome: content.outcome,
    ...(content.type ? { type: content.type } : {}),
    bytes: content.bytes,
  };
}

/** A person's message as the model reads it: the text, what their files came to, the sender's name. */
function userMessage(
  message: InboundMessage,
  attachments: readonly AttachmentContent[] = [],
): ChatMessage {
  const name = (message.userName ?? message.user).replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  const content = userContent(modelText(message), attachments);
  return { role: "user", content, ...(name ? { name } : {}) };
}
