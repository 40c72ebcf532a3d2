import { createHash } from "node:crypto";
import type { Queue } from "bullmq";
import { z } from "zod";
import {
  addressOnly,
  type ConversationAddress,
  conversationKey,
  INBOUND_TEXT_LIMIT,
  type InboundMessage,
  PLATFORM_CONTEXT_LIMIT,
} from "../core/conversation.ts";
import { traceIngress } from "../observability/tracing-ingress.ts";
import { type Enqueue, InboundMessageError } from "../ports/enqueue.ts";
import { addressPart, senderFields } from "../ports/sender-fields.ts";
import type { Inbox } from "../store/inbox.ts";
import { KeyScheme } from "../store/keys.ts";
import { bullmq } from "../store/redis/bullmq.ts";
import { ShardLayouts, shardOf, shardQueues, TURN_QUEUE } from "./shards.ts";

export { TURN_QUEUE } from "./shards.ts";

/** The job a message makes: which conversation has work, and when the message arrived. */
export interface TurnJob {
  readonly address: ConversationAddress;
  readonly enqueuedAt: number;
}

const inboundSchema = z.object({
  ...senderFields,
  userName: z.string().max(256).optional(),
  kind: z.enum(["dm", "group"]).optional(),
  text: z.string().max(INBOUND_TEXT_LIMIT),
  platformContext: z.string().max(PLATFORM_CONTEXT_LIMIT).optional(),
  attachments: z.array(
    z.object({
      name: z.string(),
      mimeType: z.string().optional(),
      size: z.number().optional(),
      ref: z.string(),
      url: z.string().optional(),
      voice: z.boolean().optional(),
    }),
  ),
  eventId: addressPart,
  messageRef: addressPart.optional(),
  time: z.number().finite(),
  scheduled: z
    .object({ id: z.string().max(64), tick: z.number().finite(), missed: z.number().int().min(0) })
    .optional(),
  hook: z.object({ name: z.string().max(64), delivery: z.string().max(128) }).optional(),
  trace: z.record(z.string().max(64), z.string().max(512)).optional(),
});

/**
 * Fewer replicas than asked acknowledged an enqueue in time. The message is
 * in the master's inbox but might not survive a failover, so the caller is
 * told instead of being told "queued": a platform's retry finds it deduped.
 */
export class ReplicationTimeoutError extends Error {
  override readonly name = "ReplicationTimeoutError";
}

export interface ConversationQueueOptions {
  readonly prefix?: string;
  readonly name?: string;
  /** The shard count; workers must use the same. 1 by default. */
  readonly shards?: number;
  /** Before returning, wait until this many replicas have the enqueue (Redis `WAIT`). */
  readonly waitForReplicas?: number;
  readonly waitTimeoutMs?: number;
}

/** How often a producer says again which shard count it uses (see `ShardLayouts`). */
const LAYOUT_REFRESH_MS = 60_000;

/**
 * The producer side: puts a message into its conversation's inbox (deduped by
 * event id) and adds a job that makes sure some worker looks at that inbox.
 * The job is added even for a duplicate: if the first delivery crashed between
 * the inbox and the job, the platform's retry still gets the job made.
 */
export class ConversationQueue implements Enqueue {
  /** One BullMQ queue per shard, by shard number. */
  readonly queues: readonly Queue<TurnJob>[];
  readonly #shards: number;
  readonly #layouts: ShardLayouts;
  readonly #refresh: NodeJS.Timeout;
  readonly #ordered: boolean;
  #registering: Promise<void> | undefined;
  /** Set once the shard count is on record: later enqueues skip even the await. */
  #onRecord = false;

  /** Jobs go out on the inbox's own connection: {@link enqueue}'s ordering relies on it. */
  constructor(
    private readonly inbox: Inbox,
    private readonly options: ConversationQueueOptions = {},
  ) {
    const keys = new KeyScheme(options.prefix ?? "sy");
    this.#shards = options.shards ?? 1;
    this.queues = shardQueues(keys, this.#shards).map(
      ({ prefix }) =>
        new (bullmq().Queue)<TurnJob>(options.name ?? TURN_QUEUE, {
          connection: inbox.redis,
          prefix,
        }),
    );
    // On a cluster the inbox and the shard's queue live on different nodes, and
    // one connection orders commands per node only.
    this.#ordered = !inbox.redis.isCluster;
    if (inbox.redis.isCluster && (options.waitForReplicas ?? 0) > 0) {
      // WAIT counts one node's replicas; an enqueue on a cluster writes to two nodes.
      throw new ReplicationTimeoutError(
        "waitForReplicas cannot be used on a Redis Cluster: WAIT counts the replicas of one node, and an enqueue writes to two. Leave it at 0 on a cluster.",
      );
    }
    this.#layouts = new ShardLayouts(inbox.redis, keys);
    this.#refresh = setInterval(() => {
      this.#layouts.register(this.#shards).catch(() => {});
    }, LAYOUT_REFRESH_MS);
    this.#refresh.unref();
  }

  /** Returns whether the message was new (false: a duplicate event, answered once already). */
  enqueue(message: InboundMessage, now = Date.now()): Promise<{ fresh: boolean }> {
    return traceIngress(message, (carried) => this.#enqueue(carried, now));
  }

  async #enqueue(message: InboundMessage, now: number): Promise<{ fresh: boolean }> {
    const parsed = inboundSchema.safeParse(message);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InboundMessageError(
        `An inbound message was refused: ${issue?.path.join(".") || "message"}: ${issue?.message}. Channels must fill in platform, workspace, channel, conversation, user, text, attachments, eventId and time.`,
      );
    }
    // Workers drain the queues of shard counts they do not run, so the count
    // must be on record before the first job of it exists.
    if (!this.#onRecord) await this.#register();
    const key = conversationKey(message);
    const queue = this.queues[shardOf(key, this.#shards)] as Queue<TurnJob>;
    // The push must reach Redis before the job can: a job that finds the inbox
    // empty lets the conversation go. On one node both go out on one
    // connection, the push first, so Redis runs them in that order and the
    // enqueue costs one round trip; on a cluster they go to different nodes,
    // so the job waits for the push.
    const pushed = this.inbox.push(message, now);
    if (!this.#ordered) await pushed;
    const added = queue.add(
      "turn",
      {
        address: addressOnly(message),
        enqueuedAt: now,
      },
      {
        jobId: `m-${createHash("sha1").update(`${key}\0${message.eventId}`).digest("hex")}`,
        removeOnComplete: true,
        removeOnFail: { count: 1000 },
        attempts: 5,
        backoff: { type: "exponential", delay: 500 },
      },
    );
    const [fresh] = await Promise.all([pushed, added]);
    await this.#replicated();
    return { fresh };
  }

  /** Whether the conversation is at rest: nothing in its inbox, no turn in progress or leased. */
  idle(address: ConversationAddress): Promise<boolean> {
    return this.inbox.idle(address);
  }

  /**
   * Makes sure a worker looks at the conversation (in `delayMs`, or now)
   * without a message: an approval decided, a wait that runs out. `jobId`
   * makes it once: a wake already queued under it is not queued again.
   */
  async wake(
    address: ConversationAddress,
    wake: { readonly jobId: string; readonly delayMs?: number },
  ): Promise<void> {
    if (!this.#onRecord) await this.#register();
    const queue = this.queues[shardOf(conversationKey(address), this.#shards)] as Queue<TurnJob>;
    const delay = Math.max(0, Math.round(wake.delayMs ?? 0));
    await queue.add(
      "turn",
      {
        address: addressOnly(address),
        enqueuedAt: Date.now() + delay,
      },
      {
        jobId: wake.jobId,
        ...(delay > 0 ? { delay } : {}),
        removeOnComplete: true,
        removeOnFail: { count: 1000 },
        attempts: 5,
        backoff: { type: "exponential", delay: 500 },
      },
    );
  }

  /** Records the shard count once; a failure is the enqueue's, and the next one tries again. */
  #register(): Promise<void> {
    this.#registering ??= this.#layouts.register(this.#shards).then(
      () => {
        this.#onRecord = true;
      },
      (error: unknown) => {
        this.#registering = undefined;
        throw error;
      },
    );
    return this.#registering;
  }

  /** `WAIT` covers every write this connection made before it: the push and the job. */
  async #replicated(): Promise<void> {
    const wanted = this.options.waitForReplicas ?? 0;
    if (wanted <= 0) return;
    const timeoutMs = this.options.waitTimeoutMs ?? 1_000;
    const acknowledged = Number(await this.inbox.redis.wait(wanted, timeoutMs));
    if (acknowledged < wanted) {
      throw new ReplicationTimeoutError(
        `Only ${acknowledged} of ${wanted} Redis replicas acknowledged the message within ${timeoutMs} ms, so it might not survive a failover. Check the replicas (INFO replication), or lower queue.wait_for_replicas.`,
      );
    }
  }

  /**
   * Jobs queued and not yet taken by a worker, over every shard: BullMQ's
   * `wait` (and `prioritized`) lists. Delayed jobs are left out: they wait
   * for a clock (a lease to expire, a retry's backoff), which more workers
   * would not make pass sooner. What `switchyard_queue_waiting` reports.
   */
  async waiting(): Promise<number> {
    const counts = await Promise.all(
      this.queues.map((queue) => queue.getJobCounts("wait", "prioritized")),
    );
    return counts.reduce((sum, c) => sum + (c.wait ?? 0) + (c.prioritized ?? 0), 0);
  }

  async close(): Promise<void> {
    clearInterval(this.#refresh);
    await Promise.all(this.queues.map((queue) => queue.close()));
  }
}
