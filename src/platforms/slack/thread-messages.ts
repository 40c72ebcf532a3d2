import { WebAPIPlatformError, type WebClient } from "@slack/web-api";
import type { DeliveryTarget } from "../../ports/outbound.ts";

/** A message as conversations.replies/history list it: what a retried delivery looks for. */
export type ListedMessage = NonNullable<
  Awaited<ReturnType<WebClient["conversations"]["replies"]>>["messages"]
>[number];

/**
 * The messages an answer to `target` lands among: the thread's replies, or,
 * in a DM answered in place, the channel's latest. Undefined when Slack
 * says no (a missing history scope): there is nothing to find, deliver.
 * Slack unreachable: throws, so the delivery is retried rather than risk a
 * second copy.
 */
export async function answerNeighbours(
  client: WebClient,
  target: DeliveryTarget,
): Promise<ListedMessage[] | undefined> {
  const thread = target.thread;
  const listed = await (thread
    ? client.conversations.replies({
        channel: target.channel,
        ts: thread,
        include_all_metadata: true,
        limit: 200,
      })
    : client.conversations.history({
        channel: target.channel,
        include_all_metadata: true,
        limit: 50,
      })
  ).catch((error: unknown) => {
    if (error instanceof WebAPIPlatformError) return undefined;
    throw error;
  });
  return listed?.messages;
}
