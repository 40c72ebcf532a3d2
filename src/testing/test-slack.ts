/**
 * Slack for a test: the fake Web API and a SlackChannel pointed at it over
 * the Events API (signed requests to the bot's own HTTP port), with a
 * person's messages, files and clicks sent as Slack sends them.
 *
 * @example
 * const slack = await startTestSlack();
 * const bot = createBot({ channels: [slack.channel()], ... });
 * await bot.start();
 * await slack.say("hello"); // a DM from U0HUMAN
 * slack.posts(); // what the bot posted
 */
import type { SlackChannel } from "../platforms/slack/channel.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  type FakeSlackUser,
  startFakeSlackApi,
} from "./fakes/slack-api.ts";
import {
  appMentionEvent,
  type BlockActionInput,
  messageEvent,
  nextUserTs,
  sendBlockAction,
  sendEvent,
} from "./fakes/slack-requests.ts";
import type { FakeSlackMessage } from "./fakes/slack-workspace.ts";
import { findControl } from "./find-control.ts";
import type { BotPost, Control, PostWith, Said, TestPlatform, Where } from "./test-platform.ts";

/** The signing secret the test channel verifies and the fake signs with. */
export const TEST_SLACK_SECRET = "switchyard-test-signing-secret";

/** The fake workspace's people: U0HUMAN writes by default; U0ADMIN is a workspace admin. */
export const TEST_SLACK_USERS: Readonly<Record<string, FakeSlackUser>> = {
  U0HUMAN: { name: "human", real_name: "Hugo Human" },
  U0ADMIN: { name: "admin", real_name: "Ada Admin", is_admin: true },
};

/** A Slack button: its label, and what a click sends back. */
interface SlackControl extends Control {
  readonly actionId: string;
  readonly value: string | undefined;
}

export interface TestSlack extends TestPlatform {
  /** The fake Web API itself: every call (`calls`), messages, files, reactions, rate limits. */
  readonly api: FakeSlackApi;
}

export interface TestSlackOptions {
  /** The workspace's people by user id; default {@link TEST_SLACK_USERS}. */
  readonly users?: Record<string, FakeSlackUser>;
}

export async function startTestSlack(options: TestSlackOptions = {}): Promise<TestSlack> {
  const api = await startFakeSlackApi({ users: { ...(options.users ?? TEST_SLACK_USERS) } });
  const { SlackChannel } = await import("../platforms/slack/channel.ts");
  const channel: SlackChannel = new SlackChannel({
    botToken: FAKE_SLACK.botToken,
    signingSecret: TEST_SLACK_SECRET,
    port: 0,
    host: "127.0.0.1",
    apiUrl: api.url,
    botId: FAKE_SLACK.botId,
    botUserId: FAKE_SLACK.botUserId,
    teamId: FAKE_SLACK.teamId,
    retries: 0,
  });
  const events = () => {
    if (channel.port === undefined) {
      throw new Error(
        "The Slack channel is not listening yet: start the bot before a person writes.",
      );
    }
    return `http://127.0.0.1:${channel.port}/slack/events`;
  };
  const deliver = async (event: Record<string, unknown>) => {
    const answer = await sendEvent(events(), TEST_SLACK_SECRET, event);
    if (answer.status !== 200) {
      throw new Error(
        `The bot answered Slack's event with HTTP ${answer.status}: ${JSON.stringify(answer.body)}`,
      );
    }
  };
  const addressed = (where: Where, ts: string): Said => {
    const user = where.user ?? "U0HUMAN";
    const channelId = where.channel ?? dmOf(user);
    const inChannel = where.channel !== undefined;
    return {
      platform: "slack",
      channel: channelId,
      // In a channel the bot answers in the mention's thread; in a DM, flat unless a thread was given.
      thread: where.thread ?? (inChannel ? ts : undefined),
      id: ts,
    };
  };
  const eventFor = (text: string, where: Where, ts: string) => {
    const user = where.user ?? "U0HUMAN";
    const input = {
      user,
      ts,
      ...(where.thread ? { threadTs: where.thread } : {}),
    };
    if (where.channel === undefined) {
      return messageEvent({ ...input, text, channel: dmOf(user), channelType: "im" });
    }
    if (where.mention === false) return messageEvent({ ...input, text, channel: where.channel });
    return appMentionEvent({
      ...input,
      text: `<@${FAKE_SLACK.botUserId}> ${text}`,
      channel: where.channel,
    });
  };
  const slackPosts = (): SlackPost[] => api.messages.filter((m) => m.bot_id).map(postOf);
  const posts = (): BotPost[] => slackPosts();

  return {
    platform: "slack",
    api,
    channel: () => channel,
    async say(text, where = {}) {
      const ts = nextUserTs();
      await deliver(eventFor(text, where, ts));
      return addressed(where, ts);
    },
    async file(file, text = "", where = {}) {
      const ts = nextUserTs();
      const stored = api.addFile({
        name: file.name,
        mimetype: file.type ?? "application/octet-stream",
        content: Buffer.from(file.bytes),
        user: where.user ?? "U0HUMAN",
      });
      const { content: _bytes, ...shared } = stored;
      await deliver({ ...eventFor(text, where, ts), subtype: "file_share", files: [shared] });
      return addressed(where, ts);
    },
    async click(target) {
      const { post, control } = findControl(slackPosts(), target);
      const user = target.user ?? "U0HUMAN";
      const input: BlockActionInput = {
        actionId: control.actionId,
        ...(control.value !== undefined ? { value: control.value } : {}),
        userId: user,
        userName: api.users.get(user)?.name ?? user,
        channelId: post.channel,
        messageTs: post.id,
        ...(post.thread ? { threadTs: post.thread } : {}),
        messageText: post.text,
        responseUrl: api.responseUrl({ channel: post.channel, messageTs: post.id }),
      };
      const answer = await sendBlockAction(events(), TEST_SLACK_SECRET, input);
      if (answer.status !== 200) {
        throw new Error(
          `The bot answered the click with HTTP ${answer.status}: ${JSON.stringify(answer.body)}`,
        );
      }
    },
    posts,
    // The bot stops its channel; this closes the fake.
    close: () => api.close(),
  };
}

type SlackPost = PostWith<SlackControl>;

/** The DM channel id of a person's conversation with the bot. */
function dmOf(user: string): string {
  return `D${user.replace(/^U/, "")}`;
}

function postOf(message: FakeSlackMessage): SlackPost {
  return {
    platform: "slack",
    channel: message.channel,
    thread: message.thread_ts,
    id: message.ts,
    text: message.text,
    controls: controlsOf(message.blocks ?? []),
  };
}

interface Block {
  type?: string;
  elements?: {
    type?: string;
    action_id?: string;
    value?: string;
    text?: { text?: string };
    positive_button?: { text?: { text?: string }; value?: string };
    negative_button?: { text?: { text?: string }; value?: string };
  }[];
}

/** The buttons of a message's actions blocks, and its feedback thumbs. */
function controlsOf(blocks: readonly unknown[]): SlackControl[] {
  const controls: SlackControl[] = [];
  for (const block of blocks as Block[]) {
    for (const element of block.elements ?? []) {
      if (element.type === "button" && element.action_id) {
        controls.push({
          label: element.text?.text ?? "",
          actionId: element.action_id,
          value: element.value,
        });
      }
      if (element.type === "feedback_buttons" && element.action_id) {
        for (const button of [element.positive_button, element.negative_button]) {
          if (button)
            controls.push({
              label: button.text?.text ?? "",
              actionId: element.action_id,
              value: button.value,
            });
        }
      }
    }
  }
  return controls;
}
