import { createHash } from "node:crypto";
import type {
  ApprovalDecision,
  ApprovalPolicy,
  Choice,
  DecidedBy,
  Verdict,
} from "../core/approvals/approval.ts";
import { mayDecide } from "../core/approvals/approvers.ts";
import { decidedText, recordedText } from "../core/approvals/outcome.ts";
import { detailsText } from "../core/approvals/request.ts";
import { checkPermission } from "../core/commands/permissions.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import type { ApprovalClick, Approvals, ClickAnswer } from "../ports/approvals.ts";
import type { DecideOutcome, Store } from "../store/index.ts";
import { approvalPolicyOf } from "../turn/approval-policy.ts";
import type { TurnApprovals } from "../turn/turn-environment.ts";
import type { ConversationQueue } from "./queue.ts";

/** What the desk needs from the process: the state, the queue to wake conversations on, the config. */
export interface ApprovalDeskOptions {
  readonly store: Store;
  readonly queue: Pick<ConversationQueue, "wake">;
  /** Owners and admins (`permissions:`) and the approval policy come from here. */
  readonly config: () => SwitchyardConfig;
  /** The approval policy of a conversation, instead of the config's. */
  readonly policy?: (address: ConversationAddress) => ApprovalPolicy;
  readonly now?: () => number;
  /**
   * How long after a click its safety wake comes (see {@link ApprovalDesk.decide});
   * short, so a decision whose ingress died is acted on within seconds.
   */
  readonly safetyWakeMs?: number;
}

const VERDICT_OF: Readonly<Record<Choice, Verdict>> = {
  approve: "approved",
  approve_conversation: "approved_conversation",
  deny: "denied",
};

const ID = /^[a-z0-9]{12}$/;

const UNKNOWN: ClickAnswer = {
  kind: "unknown",
  text: "This approval request is no longer open.",
};

/**
 * The approvals desk every process has: records a decision on a request
 * (a click or `/approve`) with the first-wins script, then wakes the
 * conversation so any worker resumes the parked turn. It never runs a tool
 * and never edits the request: the worker that resumes the turn does both,
 * once.
 *
 * @example
 * const desk = new ApprovalDesk({ store, queue, config: () => config });
 * await desk.decide({ id, choice: "approve", actor: { id: "slack:U1", isPlatformAdmin: false }, platform: "slack" });
 * // { kind: "recorded", text: "Approved. The bot goes on." }
 */
export class ApprovalDesk implements Approvals, TurnApprovals {
  readonly #store: Store;
  readonly #now: () => number;

  constructor(private readonly options: ApprovalDeskOptions) {
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
  }

  /** Who may decide a conversation's requests and how long they wait. */
  policyFor(address: ConversationAddress): ApprovalPolicy {
    return this.options.policy?.(address) ?? approvalPolicyOf(this.options.config(), address);
  }

  async decide(click: ApprovalClick): Promise<ClickAnswer> {
    if (!ID.test(click.id)) return UNKNOWN;
    const address = await this.#store.approvals.addressOf(click.id);
    if (!address) return UNKNOWN;
    const checkpoint = await this.#store.turns.readCheckpoint(address);
    const wait = checkpoint?.approval?.id === click.id ? checkpoint.approval : undefined;
    if (!wait) {
      // Not pending (any more): say who decided, if anyone did.
      const { decision } = await this.#store.approvals.read(address, click.id);
      return decision ? { kind: "decided", text: decidedText(decision) } : UNKNOWN;
    }
    const config = this.options.config();
    const permission = mayDecide(click.actor, this.policyFor(address), config.permissions, {
      platform: address.platform,
      requester: wait.requester,
    });
    if (!permission.allowed) return { kind: "refused", text: permission.reason };
    // "For this conversation" also changes the conversation's tools: who may change them may (rule 8).
    if (click.choice === "approve_conversation") {
      const scope = checkPermission(click.actor, "conversation", config.permissions);
      if (!scope.allowed) {
        return { kind: "refused", text: `${scope.reason} You can approve it just this once.` };
      }
    }
    const by: DecidedBy = { user: click.actor.id, ...(click.name ? { name: click.name } : {}) };
    const decision: ApprovalDecision = { verdict: VERDICT_OF[click.choice], by, at: this.#now() };
    // The wake must survive this process dying between recording the decision and queuing
    // the wake (kill -9, a deploy): the decision would sit in Redis with the turn parked
    // until it expired. So a delayed wake is queued BEFORE the decision is recorded, and an
    // immediate one after. Dying before the record loses nothing (the person clicks again;
    // the early wake finds no decision and the turn parks again); dying after it leaves the
    // delayed wake to resume the turn within seconds. The early wake costs a look at a
    // parked turn when the click changes nothing, which parks it again at once.
    const jobs = wakeJobs(click);
    await this.options.queue.wake(address, {
      jobId: jobs.soon,
      delayMs: this.options.safetyWakeMs ?? 3_000,
    });
    const outcome = await this.#store.approvals.decide(address, click.id, decision);
    if (outcome.kind === "recorded" || outcome.kind === "repeat") {
      await this.options.queue.wake(address, { jobId: jobs.now });
    }
    return answerOf(outcome);
  }

  async details(id: string): Promise<string | undefined> {
    if (!ID.test(id)) return undefined;
    const address = await this.#store.approvals.addressOf(id);
    if (!address) return undefined;
    const checkpoint = await this.#store.turns.readCheckpoint(address);
    const wait = checkpoint?.approval;
    return wait?.id === id ? detailsText(wait) : undefined;
  }

  /**
   * Queues the wake that ends a request's wait when nobody decides: a
   * delayed job on the conversation's shard at `expiresAt`, under an id of
   * the request's own, so a turn that parks again schedules nothing more.
   */
  async scheduleExpiry(address: ConversationAddress, id: string, expiresAt: number): Promise<void> {
    await this.options.queue.wake(address, {
      jobId: `ap-${id}-expiry`,
      delayMs: expiresAt - this.#now(),
    });
  }

  /**
   * Cancels the conversation's pending request, if its turn is parked on one
   * (`/stop`, through `TurnSignals.send`): records `cancelled` (first wins) and wakes the conversation,
   * so the calls answer "cancelled", the request is edited and the turn
   * ends. False when no request was pending or someone decided first.
   */
  async cancel(address: ConversationAddress, by?: DecidedBy): Promise<boolean> {
    const checkpoint = await this.#store.turns.readCheckpoint(address);
    const wait = checkpoint?.approval;
    if (!wait) return false;
    const jobId = `ap-${wait.id}-stop`;
    await this.options.queue.wake(address, {
      jobId: `${jobId}-soon`,
      delayMs: this.options.safetyWakeMs ?? 3_000,
    });
    const outcome = await this.#store.approvals.decide(address, wait.id, {
      verdict: "cancelled",
      ...(by ? { by } : {}),
      at: this.#now(),
    });
    if (outcome.kind !== "recorded") return false;
    await this.options.queue.wake(address, { jobId: `${jobId}-now` });
    return true;
  }
}

/** The clicker's answer for what recording came to. */
function answerOf(outcome: DecideOutcome): ClickAnswer {
  switch (outcome.kind) {
    case "unknown":
      return UNKNOWN;
    case "recorded":
    case "repeat":
      // A replayed click is answered as the first was: same words, nothing changed.
      return { kind: "recorded", text: recordedText(outcome.decision) };
    case "decided":
      return { kind: "decided", text: decidedText(outcome.decision) };
  }
}

/** The ids of a click's two wakes: the same for a replay of the click, so it queues nothing more. */
function wakeJobs(click: ApprovalClick): { soon: string; now: string } {
  const who = createHash("sha1").update(`${click.actor.id}\0${click.choice}`).digest("hex");
  const base = `ap-${click.id}-${who.slice(0, 16)}`;
  return { soon: `${base}-soon`, now: `${base}-now` };
}
