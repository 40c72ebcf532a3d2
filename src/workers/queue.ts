import { createHash } from "node:crypto";
import { Queue } from "bullmq";
import { z } from "zod";
import { conversationKey, INBOUND_TEXT_LIMIT, type InboundMessage } from "../core/agent/inbound.ts";
import { type Enqueue, InboundMessageError } from "../ports/enqueue.ts";
import type { Inbox } from "./inbox.ts";

export const TURN_QUEUE = "switchyard-turns";

/** The job a message makes: which conversation has work, and when the message arrived. */
export interface TurnJob {
  readonly address: { platform: string; workspace: string; channel: string; conversation: string };
  readonly enqueuedAt: number;
}

const part = z.string().min(1).max(512);
const inboundSchema = z.object({
  platform: part,
  workspace: part,
  channel: part,
  conversation: part,
  thread: part.optional(),
  user: part,
  userName: z.string().max(256).optional(),
  text: z.string().max(INBOUND_TEXT_LIMIT),
  attachments: z.array(
    z.object({
      name: z.string(),
      mimeType: z.string().optional(),
      size: z.number().optional(),
      ref: z.string(),
    }),
  ),
  eventId: part,
  messageRef: part.optional(),
  time: z.number().finite(),
});

/**
 * The producer side: puts a message into its conversation's inbox (deduped by
 * event id) and adds a job that makes sure some worker looks at that inbox.
 * The job is added even for a duplicate: if the first delivery crashed between
 * the inbox and the job, the platform's retry still gets the job made.
 */
export class ConversationQueue implements Enqueue {
  readonly queue: Queue<TurnJob>;

  /** Jobs go out on the inbox's own connection: {@link enqueue}'s ordering relies on it. */
  constructor(
    private readonly inbox: Inbox,
    options: { prefix?: string; name?: string } = {},
  ) {
    this.queue = new Queue<TurnJob>(options.name ?? TURN_QUEUE, {
      connection: inbox.redis,
      prefix: `${options.prefix ?? "sy"}:bull`,
    });
  }

  /** Returns whether the message was new (false: a duplicate event, answered once already). */
  async enqueue(message: InboundMessage, now = Date.now()): Promise<{ fresh: boolean }> {
    const parsed = inboundSchema.safeParse(message);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InboundMessageError(
        `An inbound message was refused: ${issue?.path.join(".") || "message"}: ${issue?.message}. Channels must fill in platform, workspace, channel, conversation, user, text, attachments, eventId and time.`,
      );
    }
    // Both go out on one connection, the push first: Redis runs them in that
    // order, so the job can never look at the inbox before the message is in
    // it, and the enqueue costs one round trip instead of two.
    const pushed = this.inbox.push(message, now);
    const key = conversationKey(message);
    const added = this.queue.add(
      "turn",
      {
        address: {
          platform: message.platform,
          workspace: message.workspace,
          channel: message.channel,
          conversation: message.conversation,
        },
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
    return { fresh };
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
