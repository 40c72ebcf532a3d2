/**
 * What the approval tests share: a tool under `ask` that counts its runs in
 * Redis (so runs in any process are counted once), a way to wait until a
 * conversation's turn is parked on its request, an approvals desk in memory,
 * and a request parked by hand for testing a channel's clicks alone.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import type { Checkpoint } from "../../src/core/agent/checkpoint.ts";
import type { ApprovalWait, Choice, DecidedBy } from "../../src/core/approvals/approval.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import {
  type ApprovalClick,
  type Approvals,
  approvalPayload,
  type ClickAnswer,
} from "../../src/ports/approvals.ts";
import type { MessageControl } from "../../src/ports/outbound.ts";
import type { Switchyard } from "../../src/runtime/app.ts";
import { newApprovalId, type Store } from "../../src/store/index.ts";

/** The Redis key the deploy tool counts its runs in. */
export function runsKey(prefix: string): string {
  return `${prefix}:test:deploy-runs`;
}

/**
 * `deploy`, a tool with effects: each run is counted in Redis. With `hold`,
 * a run waits until the key `<prefix>:test:deploy-go` exists, so a test can
 * kill its worker while it runs.
 */
export function deployTool(redis: Redis, prefix: string, hold = false) {
  return defineTool({
    id: "deploy",
    description: "Deploys the service to an environment.",
    parameters: z.object({ env: z.string() }),
    effects: true,
    approval: "ask",
    execute: async ({ env }, ctx) => {
      await redis.incr(runsKey(prefix));
      while (hold && !(await redis.exists(`${prefix}:test:deploy-go`))) {
        if (ctx.signal.aborted) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      return `deployed to ${env}`;
    },
  });
}

export async function deployRuns(redis: Redis, prefix: string): Promise<number> {
  return Number((await redis.get(runsKey(prefix))) ?? 0);
}

/** The parked turn's wait, once its request is posted and the lease let go. */
export async function parkedWait(
  redis: Redis,
  store: Store,
  address: ConversationAddress,
  timeoutMs = 20_000,
): Promise<ApprovalWait & { requestRef: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const checkpoint: Checkpoint | undefined = await store.turns.readCheckpoint(address);
    const wait = checkpoint?.approval;
    const lease = await redis.exists(store.keys.conversation(address).lease);
    if (wait?.requestRef !== undefined && lease === 0) {
      return wait as ApprovalWait & { requestRef: string };
    }
    if (Date.now() > deadline) {
      throw new Error(`the turn did not park: ${JSON.stringify(checkpoint)} (lease ${lease})`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A click on request `id` by console user `user`. */
export function clickBy(
  id: string,
  user: string,
  choice: ApprovalClick["choice"] = "approve",
): ApprovalClick {
  return {
    id,
    choice,
    actor: { id: `console:${user}`, isPlatformAdmin: false },
    name: user[0]?.toUpperCase() + user.slice(1),
    platform: "console",
  };
}

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

/** The buttons of an approval request, in the order the worker offers them. */
export function approvalControls(id: string): MessageControl[] {
  return [
    { payload: approvalPayload(id, "approve"), label: "Approve", style: "primary" },
    {
      payload: approvalPayload(id, "approve_conversation"),
      label: "Approve for this conversation",
    },
    { payload: approvalPayload(id, "deny"), label: "Deny", style: "danger" },
    { payload: approvalPayload(id, "show"), label: "Show arguments" },
  ];
}

export interface ParkedRequest {
  readonly id: string;
  readonly wait: ApprovalWait;
}

/**
 * A turn parked on an approval request, as the worker leaves it: the
 * checkpoint holding the step's call and the wait, and the request's id
 * indexed for the desk. For testing a channel's clicks against the real
 * desk without running a turn (the pipeline started with `worker: false`).
 */
export async function parkRequest(
  app: Switchyard,
  address: ConversationAddress,
  call: { tool: string; arguments: string },
  requester: DecidedBy,
  timeoutMs = 60_000,
): Promise<ParkedRequest> {
  const id = newApprovalId();
  const wait: ApprovalWait = {
    id,
    step: 1,
    calls: [{ callId: "call-1", tool: call.tool, arguments: call.arguments }],
    requester,
    requestedAt: Date.now(),
    expiresAt: Date.now() + timeoutMs,
  };
  const checkpoint: Checkpoint = {
    v: 1,
    turnId: `turn-${id}`,
    step: 1,
    historyStart: 0,
    inboxCount: 1,
    contractHash: "h",
    loaded: [],
    delivered: [],
    calling: {
      step: 1,
      message: {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call-1",
            type: "function",
            function: { name: call.tool, arguments: call.arguments },
          },
        ],
      },
    },
    approval: wait,
  };
  await app.store.approvals.index(id, address, timeoutMs);
  await app.store.turns.writeCheckpoint(address, checkpoint);
  return { id, wait };
}
