/**
 * What the approval tests share: a tool under `ask` that counts its runs in
 * Redis (so runs in any process are counted once), and a way to wait until
 * a conversation's turn is parked on its request.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import type { Checkpoint } from "../../src/core/agent/checkpoint.ts";
import type { ConversationAddress } from "../../src/core/agent/inbound.ts";
import type { ApprovalWait } from "../../src/core/approvals/approval.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import type { ApprovalClick } from "../../src/ports/approvals.ts";
import type { Store } from "../../src/store/index.ts";

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
