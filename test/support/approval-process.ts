/**
 * A process for the approval crash tests (test/integration/crash-approvals.test.ts),
 * killed with SIGKILL at chosen points:
 *
 * - `APPROVAL_ROLE=worker`: a worker (startSwitchyard) whose `deploy` tool
 *   asks first (`approval: "ask"`), posting to the `crashy` platform: an outbound that
 *   records posts and edits in a Redis list, once per idempotency key.
 * - `APPROVAL_ROLE=ingress`: the approvals desk taking one click
 *   (`APPROVAL_CLICK`, JSON), then exiting.
 *
 * A point hangs (forever, until the test kills the process) while the key
 * `<prefix>:test:hang:<point>` exists; the process first writes its pid to
 * `<prefix>:test:at:<point>`. Points: `post` (before the request is posted),
 * `posted` (after it is posted, before its ref is stored), `tool` (while the
 * approved tool runs), `wake` (the desk recorded the decision, before it
 * queues the immediate wake).
 *
 * Run: node --import tsx test/support/approval-process.ts
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import { isApprovalPayload } from "../../src/ingress/approval-click.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import type { ApprovalClick } from "../../src/ports/approvals.ts";
import type { DeliveryTarget, Outbound, PostOptions } from "../../src/ports/outbound.ts";
import { createOpenAIProvider } from "../../src/providers/openai.ts";
import { ApprovalDesk } from "../../src/queue/approval-desk.ts";
import { ConversationQueue } from "../../src/queue/queue.ts";
import { startSwitchyard } from "../../src/runtime/app.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { createStore } from "../../src/store/index.ts";
import { LuaScript } from "../../src/store/lua.ts";
import { RedisFactory } from "../../src/store/redis/redis-factory.ts";
import { topologyFrom } from "../../src/store/redis/redis-topology.ts";

const env = process.env;
const prefix = env.SWITCHYARD_PREFIX as string;
const factory = new RedisFactory(topologyFrom(env));
const redis = factory.create("state");

/** Hangs here for as long as the test asks, saying so first. */
async function point(name: string): Promise<void> {
  if (!(await redis.exists(`${prefix}:test:hang:${name}`))) return;
  await redis.set(`${prefix}:test:at:${name}`, String(process.pid));
  await new Promise(() => {});
}

/** The outbound's log: one JSON entry per post or edit that reached "the platform". */
export function outboundLog(p: string): string {
  return `${p}:test:outbound`;
}

const POST = new LuaScript(`
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
local ref = 'm' .. redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[1], ref)
redis.call('RPUSH', KEYS[2], cjson.encode({kind = 'post', ref = ref, text = ARGV[1], controls = tonumber(ARGV[2])}))
return ref
`);

class CrashyOutbound implements Outbound {
  readonly maxLength = 4_000;
  readonly canEdit = true;
  constructor(private readonly redis: Redis) {}

  async post(_target: DeliveryTarget, text: string, options: PostOptions): Promise<string> {
    // An approval request is a post with approval buttons; an answer's 👍 / 👎 do not make one.
    const approvalControls = (options.controls ?? []).filter((c) => isApprovalPayload(c.payload));
    const request = approvalControls.length > 0;
    if (request) await point("post");
    const ref = String(
      await POST.run(
        this.redis,
        [
          `${prefix}:test:sent:${options.idempotencyKey}`,
          outboundLog(prefix),
          `${prefix}:test:refs`,
        ],
        [text, approvalControls.length],
      ),
    );
    if (request) await point("posted");
    return ref;
  }

  async edit(_target: DeliveryTarget, ref: string, text: string): Promise<void> {
    await this.redis.rpush(outboundLog(prefix), JSON.stringify({ kind: "edit", ref, text }));
  }

  async typing(): Promise<void> {}
}

if (env.APPROVAL_ROLE === "ingress") {
  const store = createStore(redis, { prefix });
  const queue = new ConversationQueue(new Inbox(redis, store.keys), { prefix });
  const desk = new ApprovalDesk({
    store,
    queue: {
      async wake(address, wake) {
        if (!wake.delayMs) await point("wake");
        await queue.wake(address, wake);
      },
    },
    config: () => EMPTY_CONFIG,
  });
  const answer = await desk.decide(JSON.parse(env.APPROVAL_CLICK as string) as ApprovalClick);
  process.stdout.write(`${JSON.stringify(answer)}\n`);
  await queue.close();
  redis.disconnect();
} else {
  const deploy = defineTool({
    id: "deploy",
    description: "Deploys the service to an environment.",
    parameters: z.object({ env: z.string() }),
    effects: true,
    approval: "ask",
    execute: async ({ env: where }) => {
      await redis.incr(`${prefix}:test:deploy-runs`);
      await point("tool");
      return `deployed to ${where}`;
    },
  });
  await startSwitchyard({
    redis: factory,
    prefix,
    registry: new ToolRegistry([deploy]),
    provider: createOpenAIProvider({
      apiKey: "test",
      baseURL: env.OPENAI_BASE_URL as string,
      model: "fake-model",
      maxRetries: 0,
    }),
    queueBehaviour: () => ({ mode: "collect", debounceMs: 0 }),
    outbounds: { crashy: new CrashyOutbound(redis) },
    streamEditMs: 0,
    leaseMs: 1_500,
    lockDurationMs: 1_500,
    stalledIntervalMs: 500,
  });
  process.stderr.write("worker started\n");
}
