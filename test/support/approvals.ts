import type { Choice } from "../../src/core/approvals/approval.ts";
import type { ApprovalClick, Approvals, ClickAnswer } from "../../src/ports/approvals.ts";

/**
 * An approvals desk in memory, for testing what the channels do with a
 * click before the real desk (Redis, first decision wins, wakes the turn)
 * is wired: it records every call, lets the listed people decide, and
 * answers a second decision with who decided first.
 */
export class MemoryApprovals implements Approvals {
  readonly clicks: ApprovalClick[] = [];
  /** The decisions that counted: the first per request, in order. */
  readonly recorded: ApprovalClick[] = [];
  readonly detailsAsked: string[] = [];
  readonly #decided = new Map<string, { choice: Choice; by: string }>();
  /** Throws this from every call, to stand for a desk whose Redis is away. */
  failWith: Error | undefined;

  constructor(
    /** The requests there are: id -> their full arguments. */
    readonly requests: Map<string, string> = new Map(),
    /** Actor ids (`slack:U1`) that may decide; platform admins always may. */
    readonly approvers: ReadonlySet<string> = new Set(),
  ) {}

  async decide(click: ApprovalClick): Promise<ClickAnswer> {
    this.clicks.push(click);
    if (this.failWith) throw this.failWith;
    if (!this.requests.has(click.id)) return { kind: "unknown", text: "No such request." };
    if (!click.actor.isPlatformAdmin && !this.approvers.has(click.actor.id)) {
      return { kind: "refused", text: "Only the requester or an admin may decide this request." };
    }
    const first = this.#decided.get(click.id);
    if (first) return { kind: "decided", text: `Already decided: ${first.choice} by ${first.by}.` };
    this.#decided.set(click.id, { choice: click.choice, by: click.name ?? click.actor.id });
    this.recorded.push(click);
    return { kind: "recorded", text: `Recorded: ${click.choice}.` };
  }

  async details(id: string): Promise<string | undefined> {
    this.detailsAsked.push(id);
    if (this.failWith) throw this.failWith;
    return this.requests.get(id);
  }
}
