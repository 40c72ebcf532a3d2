import { Queue } from "bullmq";
import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/core/agent/checkpoint.ts";
import type { ApprovalWait } from "../../src/core/approvals/approval.ts";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import type { ApprovalClick } from "../../src/ports/approvals.ts";
import { ApprovalDesk } from "../../src/queue/approval-desk.ts";
import { ConversationQueue, type TurnJob } from "../../src/queue/queue.ts";
import { shardQueues, TURN_QUEUE } from "../../src/queue/shards.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { createStore, newApprovalId } from "../../src/store/index.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("approval-desk");

const address: ConversationAddress = {
  platform: "slack",
  workspace: "T1",
  channel: "C1",
  conversation: "C1",
};

function parked(wait: ApprovalWait): Checkpoint {
  return {
    v: 1,
    turnId: "turn-1",
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
          { id: "c1", type: "function", function: { name: "deploy", arguments: '{"env":"prod"}' } },
        ],
      },
    },
    approval: wait,
  };
}

function click(id: string, who: string, choice: ApprovalClick["choice"], admin = false) {
  return {
    id,
    choice,
    actor: { id: `slack:${who}`, isPlatformAdmin: admin },
    name: who === "U1" ? "Alice" : who,
    platform: "slack",
  } satisfies ApprovalClick;
}

async function setUp(config: SwitchyardConfig = EMPTY_CONFIG, expiresIn = 60_000) {
  const store = createStore(db.redis, { prefix: db.prefix });
  const queue = new ConversationQueue(new Inbox(db.redis, store.keys), { prefix: db.prefix });
  const desk = new ApprovalDesk({ store, queue, config: () => config });
  const id = newApprovalId();
  const wait: ApprovalWait = {
    id,
    step: 1,
    calls: [{ callId: "c1", tool: "deploy", arguments: '{"env":"prod"}' }],
    requester: { user: "U1", name: "Alice" },
    requestedAt: Date.now(),
    expiresAt: Date.now() + expiresIn,
  };
  await store.approvals.index(id, address, expiresIn);
  await store.turns.writeCheckpoint(address, parked(wait));
  const jobs = new Queue<TurnJob>(TURN_QUEUE, {
    connection: db.redis,
    prefix: shardQueues(store.keys, 1)[0]?.prefix as string,
  });
  return {
    store,
    desk,
    id,
    wait,
    jobIds: async () => (await jobs.getJobs(["wait", "delayed"])).map((j) => String(j.id)).sort(),
    async close() {
      await jobs.close();
      await queue.close();
    },
  };
}

describe("the approvals desk", () => {
  it("records the first decision, tells a later clicker who decided, and answers a replayed click as the first", async () => {
    const t = await setUp();
    try {
      const first = await t.desk.decide(click(t.id, "U1", "approve"));
      expect(first).toEqual({ kind: "recorded", text: "Approved. The bot goes on." });
      const replay = await t.desk.decide(click(t.id, "U1", "approve"));
      expect(replay).toEqual(first);
      const admin = await t.desk.decide(click(t.id, "U9", "deny", true));
      expect(admin).toEqual({ kind: "decided", text: "Alice already approved this." });
      const { decision } = await t.store.approvals.read(address, t.id);
      expect(decision?.verdict).toBe("approved");
      expect(decision?.by).toEqual({ user: "slack:U1", name: "Alice" });
      // Each click queued a delayed safety wake and, once recorded, an immediate one.
      const ids = await t.jobIds();
      expect(ids.filter((j) => j.endsWith("-now"))).toHaveLength(1);
      expect(ids.filter((j) => j.endsWith("-soon"))).toHaveLength(2);
    } finally {
      await t.close();
    }
  });

  it("refuses a person the policy does not name, and changes nothing", async () => {
    const t = await setUp();
    try {
      const answer = await t.desk.decide(click(t.id, "U2", "approve"));
      expect(answer.kind).toBe("refused");
      expect(answer.text).toBe(
        "Only Alice (who asked), admins or the bot's owners can decide this request.",
      );
      expect((await t.store.approvals.read(address, t.id)).decision).toBeUndefined();
      expect(await t.jobIds()).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it("lets owners and configured admins decide someone else's request", async () => {
    const config: SwitchyardConfig = {
      ...EMPTY_CONFIG,
      permissions: { owners: ["slack:U7"], admins: ["slack:U8"], conversation: "anyone" },
    };
    const t = await setUp(config);
    try {
      expect((await t.desk.decide(click(t.id, "U8", "deny"))).kind).toBe("recorded");
      expect(await t.desk.decide(click(t.id, "U7", "approve"))).toEqual({
        kind: "decided",
        text: "U8 already denied this.",
      });
    } finally {
      await t.close();
    }
  });

  it("refuses approve-for-this-conversation to someone who may not change the conversation's tools", async () => {
    const config: SwitchyardConfig = {
      ...EMPTY_CONFIG,
      permissions: { owners: [], admins: [], conversation: "admins" },
    };
    const t = await setUp(config);
    try {
      const answer = await t.desk.decide(click(t.id, "U1", "approve_conversation"));
      expect(answer.kind).toBe("refused");
      expect(answer.text).toMatch(/You can approve it just this once\.$/);
      expect((await t.desk.decide(click(t.id, "U1", "approve"))).kind).toBe("recorded");
    } finally {
      await t.close();
    }
  });

  it("records a click after the request expired as expired", async () => {
    const t = await setUp(EMPTY_CONFIG, -1);
    try {
      expect(await t.desk.decide(click(t.id, "U1", "approve"))).toEqual({
        kind: "decided",
        text: "This request expired: nobody decided in time.",
      });
      expect((await t.store.approvals.read(address, t.id)).decision?.verdict).toBe("expired");
    } finally {
      await t.close();
    }
  });

  it("answers unknown for a malformed or unknown id", async () => {
    const t = await setUp();
    try {
      expect((await t.desk.decide(click("nope", "U1", "approve"))).kind).toBe("unknown");
      expect((await t.desk.decide(click("abcdefabcdef", "U1", "approve"))).kind).toBe("unknown");
      expect(await t.desk.details("abcdefabcdef")).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  it("shows the full arguments of a pending request", async () => {
    const t = await setUp();
    try {
      expect(await t.desk.details(t.id)).toBe('deploy:\n```\n{\n  "env": "prod"\n}\n```');
    } finally {
      await t.close();
    }
  });

  it("cancels a pending request for /stop, unless someone decided first", async () => {
    const t = await setUp();
    try {
      expect(await t.desk.cancel(address)).toBe(true);
      expect((await t.store.approvals.read(address, t.id)).decision?.verdict).toBe("cancelled");
      expect(await t.desk.cancel(address)).toBe(false);
      expect(await t.desk.decide(click(t.id, "U1", "approve"))).toEqual({
        kind: "decided",
        text: "This request was cancelled: the turn was stopped.",
      });
    } finally {
      await t.close();
    }
  });

  it("claims an approved call once", async () => {
    const t = await setUp();
    try {
      expect(await t.store.approvals.claim(address, t.id, "c1")).toBe(true);
      expect(await t.store.approvals.claim(address, t.id, "c1")).toBe(false);
    } finally {
      await t.close();
    }
  });
});
