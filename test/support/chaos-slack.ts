import { setTimeout as sleep } from "node:timers/promises";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  messageEvent,
  sendEvent,
} from "../../src/testing/fakes/slack-requests.ts";
import { APOLOGY } from "./chaos-ledger.ts";
import { answerFor, hasTag, TAG } from "./chaos-model.ts";
import type { ChaosPlatform } from "./chaos-scenario.ts";
import { freePort } from "./switchyard-process.ts";

export const SLACK_SECRET = "chaos-signing-secret";
const CHANNEL = "C0CHAOS";
const POSTS = new Set(["chat.postMessage", "chat.startStream"]);
/** A streamed message counts as between edits once nothing was written to its thread for this long. */
const QUIET_MS = 100;
const WRITES = new Set([
  "chat.postMessage",
  "chat.update",
  "chat.startStream",
  "chat.appendStream",
]);

/** A bot message that shows part of an answer: tagged, not whole, not an apology. */
export function isPartial(text: string): boolean {
  const tags = text.match(TAG) ?? [];
  return tags.length > 0 && text.trim() !== answerFor(tags) && !APOLOGY.test(text);
}

export interface SlackChaos extends ChaosPlatform {
  readonly fake: FakeSlackApi;
  /** The Events API URL of the ingress process. */
  readonly eventsUrl: string;
  close(): Promise<void>;
}

/**
 * Slack for the chaos scenarios: the fake Web API with a round trip per
 * call, and people who mention the bot in #chaos (each mention a thread, a
 * conversation of its own) and then write in the thread. Events are
 * delivered as Slack delivers them: signed, and retried with
 * X-Slack-Retry-Num when the app does not answer 200.
 */
export async function slackChaos(
  delayMs: number,
  {
    replays = 0,
  }: {
    /** Slack's redeliveries of every event: X-Slack-Retry-Num 1..replays, the first alongside the original. */
    replays?: number;
  } = {},
): Promise<SlackChaos> {
  const fake = await startFakeSlackApi({ roundTripMs: delayMs });
  const port = await freePort();
  const eventsUrl = `http://127.0.0.1:${port}/slack/events`;
  const threads = new Map<number, string>();

  const addressOf = (thread: string): ConversationAddress => ({
    platform: "slack",
    workspace: FAKE_SLACK.teamId,
    channel: CHANNEL,
    conversation: `${CHANNEL}:${thread}`,
  });
  const threadOfCall = (args: Record<string, unknown>): string | undefined => {
    if (typeof args.thread_ts === "string") return args.thread_ts;
    return fake.messages.find((m) => m.ts === args.ts)?.thread_ts;
  };
  const botMessages = (thread: string) =>
    fake.messages.filter((m) => m.channel === CHANNEL && m.thread_ts === thread && m.bot_id);

  return {
    name: "slack",
    fake,
    eventsUrl,
    delayMs,
    env: () => ({
      SLACK_BOT_TOKEN: FAKE_SLACK.botToken,
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_API_URL: fake.url,
      SWITCHYARD_HTTP_PORT: String(port),
    }),
    async send(conversation, tag, first) {
      const thread = threads.get(conversation);
      const event = first
        ? appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> ${tag}`, channel: CHANNEL })
        : messageEvent({ text: tag, channel: CHANNEL, ...(thread ? { threadTs: thread } : {}) });
      if (first) threads.set(conversation, event.ts as string);
      if (replays === 0) return void (await deliverEvent(eventsUrl, event));
      await replayEvent(eventsUrl, event, replays);
      // Slack also sends a `message` event for every mention; it must make no second turn.
      if (first)
        await replayEvent(eventsUrl, { ...event, type: "message", channel_type: "channel" }, 0);
    },
    address: (conversation) => {
      const thread = threads.get(conversation);
      return thread ? addressOf(thread) : undefined;
    },
    shown: (conversation) => {
      const thread = threads.get(conversation);
      return thread ? botMessages(thread).map((m) => m.text) : [];
    },
    moments: () => ({
      // A streamed message shows part of the answer and nothing for its thread is on its way.
      "while streaming": () => {
        // Written to lately or still being written to: inside a post's window, not between edits.
        const now = Date.now();
        const writing = new Set(
          fake.calls
            .filter((c) => WRITES.has(c.method) && (c.answeredAt ?? now) > now - QUIET_MS)
            .map((c) => threadOfCall(c.args)),
        );
        for (const thread of threads.values()) {
          if (writing.has(thread)) continue;
          const partial = botMessages(thread).find((m) => isPartial(m.text));
          if (partial) return { address: addressOf(thread), kind: "while streaming" };
        }
        return undefined;
      },
      // Slack has carried out a post or edit of an answer; its caller has not heard back yet.
      "post in flight": () => {
        for (const call of fake.inFlight()) {
          if (!WRITES.has(call.method) || call.appliedAt === undefined) continue;
          const chunks = Array.isArray(call.args.chunks)
            ? call.args.chunks.map((c: { text?: string }) => c.text ?? "").join("")
            : "";
          if (!hasTag(String(call.args.text ?? call.args.markdown_text ?? chunks))) continue;
          const thread = threadOfCall(call.args);
          if (thread) return { address: addressOf(thread), kind: "post in flight" };
        }
        return undefined;
      },
    }),
    busy: () => fake.inFlight().some((c) => WRITES.has(c.method)),
    orphanedPosts: () => fake.calls.filter((c) => POSTS.has(c.method) && c.clientGone).length,
    close: () => fake.close(),
  };
}

/**
 * Delivers an event the way Slack does: a fresh event id, and up to three
 * retries (X-Slack-Retry-Num 1..3) while the app answers anything but 200 or
 * cannot be reached. Slack waits minutes between them; the suite waits 1 s.
 */
export async function deliverEvent(
  url: string,
  event: Record<string, unknown>,
  eventId = `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
): Promise<number> {
  let status = 0;
  for (let retry = 0; retry <= 3; retry++) {
    try {
      status = (
        await sendEvent(url, SLACK_SECRET, event, {
          eventId,
          ...(retry > 0 ? { retryNum: retry } : {}),
        })
      ).status;
    } catch {
      status = 0;
    }
    if (status === 200) return status;
    await sleep(1_000);
  }
  return status;
}

/**
 * Delivers one event `1 + replays` times with one event id, as Slack does
 * when the ack was slow or lost: the first redelivery (X-Slack-Retry-Num 1)
 * races the original, the others follow it. Returns the statuses.
 */
export async function replayEvent(
  url: string,
  event: Record<string, unknown>,
  replays: number,
): Promise<number[]> {
  const eventId = `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`;
  const send = (retryNum?: number) =>
    sendEvent(url, SLACK_SECRET, event, { eventId, ...(retryNum ? { retryNum } : {}) }).then(
      (r) => r.status,
      () => 0,
    );
  const statuses = await Promise.all([send(), ...(replays > 0 ? [send(1)] : [])]);
  for (let retry = 2; retry <= replays; retry++) statuses.push(await send(retry));
  return statuses;
}
