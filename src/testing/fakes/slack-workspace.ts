/**
 * The state behind the fake Slack Web API (see slack-api.ts): one workspace
 * with its bot, users, messages, reactions and files, and the Web API methods
 * that read and change it. Answers have the shapes Slack documents; errors are
 * `{ ok: false, error }` with Slack's error codes, sent with HTTP 200 as Slack
 * does.
 *
 * Slack's message limits hold here too (slack-limits.ts), so a bot that passes
 * against the fake does not break in Slack.
 */
import {
  SLACK_TEXT_LIMIT,
  type SlackArgs,
  type SlackResult,
  validateBlocks,
} from "./slack-limits.ts";

/** The ids and token of the fake workspace and its bot, shared with slack-requests.ts. */
export const FAKE_SLACK = {
  botToken: "xoxb-fake-bot-token",
  teamId: "T0FAKETEAM",
  teamName: "Fake Workspace",
  teamDomain: "fake-workspace",
  botUserId: "U0FAKEBOT",
  botName: "switchyard",
  botId: "B0FAKEBOT",
  appId: "A0FAKEAPP",
} as const;

export type FakeSlackIdentity = { -readonly [K in keyof typeof FAKE_SLACK]: string };

/** What a test sets for a user; users.info fills in the rest. */
export interface FakeSlackUser {
  name?: string;
  real_name?: string;
  display_name?: string;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_bot?: boolean;
  deleted?: boolean;
  tz?: string;
  /** The user's own team: another one for a Slack Connect guest. Defaults to the fake's team. */
  team_id?: string;
}

/** A message as the fake stores it: the wire message plus the channel it is in. */
export interface FakeSlackMessage {
  channel: string;
  type: "message";
  ts: string;
  text: string;
  user: string;
  team: string;
  bot_id?: string;
  app_id?: string;
  blocks?: unknown[];
  thread_ts?: string;
  parent_user_id?: string;
  edited?: { user: string; ts: string };
  metadata?: unknown;
  /** A file share's files, as Slack lists them (slack-uploads.ts). */
  files?: SlackResult[];
  upload?: boolean;
  display_as_bot?: boolean;
}

/** A stream the bot started (chat.startStream): where, to whom, and how it went. */
export interface FakeSlackStream {
  channel: string;
  ts: string;
  recipient: string | undefined;
  team: string | undefined;
  appends: number;
  stopped: boolean;
}

/** A channel a test declares; channels it never declares still take posts, as before. */
export interface FakeSlackChannel {
  name: string;
  is_private?: boolean;
  is_archived?: boolean;
  /** Deleted: Slack answers `channel_not_found` to everything about it. */
  deleted?: boolean;
  /** User ids in the channel; the bot is in it when its user id is here. */
  members: string[];
}

/**
 * A thread of the assistant pane: the DM thread Slack opens when a person
 * opens the bot beside a channel, and what the bot set on it.
 */
export interface FakeAssistantThread {
  channel: string;
  thread_ts: string;
  user: string;
  /** The latest `assistant.threads.setTitle`. */
  title?: string;
  /** The latest `assistant.threads.setSuggestedPrompts`. */
  prompts?: { title: string; message: string }[];
  promptsTitle?: string;
  /** The latest `assistant.threads.setStatus` ("" clears it). */
  status?: string;
}

export interface FakeSlackReaction {
  channel: string;
  timestamp: string;
  name: string;
  user: string;
}

export interface FakeSlackFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  user: string;
  created: number;
  url_private: string;
  url_private_download: string;
  /** Served at `url_private_download` to requests carrying the bot token. Not sent on the wire. */
  content: Buffer;
}

export type { SlackArgs, SlackResult };

const fail = (error: string, extra: SlackResult = {}): SlackResult => ({
  ok: false,
  error,
  ...extra,
});

export class FakeSlackWorkspace {
  readonly users = new Map<string, FakeSlackUser>();
  readonly messages: FakeSlackMessage[] = [];
  readonly reactions: FakeSlackReaction[] = [];
  readonly files = new Map<string, FakeSlackFile>();
  readonly channels = new Map<string, FakeSlackChannel>();
  /** Assistant pane threads, by `channel:thread_ts`. */
  readonly assistantThreads = new Map<string, FakeAssistantThread>();
  /** Every stream started, in order, with its recipient and how often it was appended to. */
  readonly streams: FakeSlackStream[] = [];
  /** `channel:ts` of the messages still streaming. */
  private readonly streaming = new Set<string>();
  private clock: number;

  constructor(
    readonly identity: FakeSlackIdentity,
    startTs: number,
  ) {
    // Message timestamps are microseconds written "seconds.micros"; step 100 like "…000100".
    this.clock = startTs * 1_000_000;
  }

  /** A fresh, strictly increasing message timestamp, e.g. "1700000000.000100". */
  nextTs(): string {
    this.clock += 100;
    const seconds = Math.floor(this.clock / 1_000_000);
    const micros = String(this.clock % 1_000_000).padStart(6, "0");
    return `${seconds}.${micros}`;
  }

  find(channel: string, ts: string): FakeSlackMessage | undefined {
    return this.messages.find((message) => message.channel === channel && message.ts === ts);
  }

  /** Answers one Web API method, or undefined when the fake does not implement it. */
  call(method: string, args: SlackArgs): SlackResult | undefined {
    const handler = this.methods[method];
    return handler ? { ok: true, ...handler(args) } : undefined;
  }

  private readonly methods: Record<string, (args: SlackArgs) => SlackResult> = {
    "auth.test": () => ({
      url: `https://${this.identity.teamDomain}.slack.com/`,
      team: this.identity.teamName,
      user: this.identity.botName,
      team_id: this.identity.teamId,
      user_id: this.identity.botUserId,
      bot_id: this.identity.botId,
      is_enterprise_install: false,
    }),
    "chat.postMessage": (args) => this.post(args),
    "chat.update": (args) => this.update(args),
    "chat.delete": (args) => {
      const index = this.messages.findIndex((m) => m.channel === args.channel && m.ts === args.ts);
      if (index < 0) return fail("message_not_found");
      this.messages.splice(index, 1);
      return { channel: args.channel, ts: args.ts };
    },
    "chat.postEphemeral": (args) => {
      if (!args.channel) return fail("channel_not_found");
      if (!args.user) return fail("user_not_in_channel");
      if (!args.text && !args.blocks && !args.attachments) return fail("no_text");
      return { message_ts: this.nextTs() };
    },
    "chat.getPermalink": (args) => {
      if (!this.find(args.channel, args.message_ts)) return fail("message_not_found");
      const id = `p${String(args.message_ts).replace(".", "")}`;
      return {
        channel: args.channel,
        permalink: `https://${this.identity.teamDomain}.slack.com/archives/${args.channel}/${id}`,
      };
    },
    // chat.startStream / appendStream / stopStream, as Slack's method references
    // describe them (and Bolt's `sayStream()`, the SDK's ChatStreamer, call them):
    // the streamed message is a reply in a thread, to a recipient outside a DM;
    // text comes as `markdown_text` or `markdown_text` chunks; a message takes
    // appends until it is stopped, then answers message_not_in_streaming_state.
    "chat.startStream": (args) => {
      if (!args.channel || !args.thread_ts) return fail("invalid_arguments");
      const dm = String(args.channel).startsWith("D");
      if (!dm && (!args.recipient_user_id || !args.recipient_team_id)) {
        return fail("invalid_arguments");
      }
      const text = streamedText(args);
      if (text === undefined) return fail("invalid_arguments");
      const posted = this.post({ ...args, text, unfurl_links: false });
      if (posted.ok === false) return posted;
      this.streaming.add(`${posted.channel}:${posted.ts}`);
      this.streams.push({
        channel: String(posted.channel),
        ts: String(posted.ts),
        recipient: args.recipient_user_id,
        team: args.recipient_team_id,
        appends: 0,
        stopped: false,
      });
      return { channel: posted.channel, ts: posted.ts };
    },
    "chat.appendStream": (args) => {
      if (!args.channel || !args.ts) return fail("invalid_arguments");
      const text = streamedText(args);
      if (!text) return fail("invalid_arguments");
      const message = this.find(args.channel, args.ts);
      if (!message) return fail("message_not_found");
      if (!this.streaming.has(`${args.channel}:${args.ts}`)) {
        return fail("message_not_in_streaming_state");
      }
      message.text = (message.text + text).slice(0, SLACK_TEXT_LIMIT);
      const stream = this.streamOf(args.channel, args.ts);
      if (stream) stream.appends++;
      return { channel: args.channel, ts: args.ts };
    },
    "chat.stopStream": (args) => {
      if (!args.channel || !args.ts) return fail("invalid_arguments");
      const message = this.find(args.channel, args.ts);
      if (!message) return fail("message_not_found");
      if (!this.streaming.delete(`${args.channel}:${args.ts}`)) {
        return fail("message_not_in_streaming_state");
      }
      const invalid = validateBlocks(args.blocks);
      if (invalid) return invalid;
      message.text = (message.text + (streamedText(args) ?? "")).slice(0, SLACK_TEXT_LIMIT);
      if (Array.isArray(args.blocks)) message.blocks = args.blocks;
      if (args.metadata) message.metadata = args.metadata;
      const stream = this.streamOf(args.channel, args.ts);
      if (stream) stream.stopped = true;
      return { channel: args.channel, ts: args.ts, message: wire(message) };
    },
    "conversations.replies": (args) => {
      const thread = this.messages
        .filter((m) => m.channel === args.channel && (m.ts === args.ts || m.thread_ts === args.ts))
        .sort((a, b) => compareTs(a.ts, b.ts));
      if (thread.length === 0) return fail("thread_not_found");
      return {
        messages: thread.map(wire),
        has_more: false,
        response_metadata: { next_cursor: "" },
      };
    },
    "conversations.history": (args) => {
      const limit = Number(args.limit ?? 100);
      const top = this.messages
        .filter((m) => m.channel === args.channel && (!m.thread_ts || m.thread_ts === m.ts))
        .sort((a, b) => compareTs(b.ts, a.ts));
      return {
        messages: top.slice(0, limit).map(wire),
        has_more: top.length > limit,
        pin_count: 0,
        response_metadata: { next_cursor: "" },
      };
    },
    // Reactions are not checked against stored messages: the messages people
    // write reach the bot as events and are not in the fake's store.
    "reactions.add": (args) => {
      if (!args.name) return fail("invalid_name");
      const reaction = { ...this.reactionKey(args), name: String(args.name) };
      if (this.reactionIndex(reaction) >= 0) return fail("already_reacted");
      this.reactions.push(reaction);
      return {};
    },
    "reactions.remove": (args) => {
      const index = this.reactionIndex({ ...this.reactionKey(args), name: String(args.name) });
      if (index < 0) return fail("no_reaction");
      this.reactions.splice(index, 1);
      return {};
    },
    "assistant.threads.setStatus": (args) => {
      if (!args.channel_id || !args.thread_ts || args.status === undefined) {
        return fail("invalid_arguments");
      }
      const pane = this.assistantThreads.get(`${args.channel_id}:${args.thread_ts}`);
      if (pane) pane.status = String(args.status);
      return {};
    },
    // Both need a pane thread Slack opened (`openAssistantThread`), as Slack does.
    "assistant.threads.setSuggestedPrompts": (args) => {
      if (!args.channel_id || !Array.isArray(args.prompts)) return fail("invalid_arguments");
      const pane = this.paneThread(args);
      if ("error" in pane) return pane;
      const prompts = args.prompts as unknown[];
      const valid = prompts.every(
        (p) =>
          typeof p === "object" &&
          p !== null &&
          typeof (p as SlackArgs).title === "string" &&
          (p as SlackArgs).title !== "" &&
          typeof (p as SlackArgs).message === "string" &&
          (p as SlackArgs).message !== "",
      );
      if (!valid || prompts.length === 0 || prompts.length > 4) return fail("invalid_arguments");
      pane.prompts = prompts as FakeAssistantThread["prompts"];
      if (args.title !== undefined) pane.promptsTitle = String(args.title);
      return {};
    },
    "assistant.threads.setTitle": (args) => {
      if (!args.channel_id || typeof args.title !== "string" || args.title === "") {
        return fail("invalid_arguments");
      }
      const pane = this.paneThread(args);
      if ("error" in pane) return pane;
      pane.title = args.title;
      return {};
    },
    // The bot's DM with a person: one per person, `D` and their id without its `U`.
    "conversations.open": (args) => {
      const user = String(args.users ?? "");
      if (user === "" || user.includes(",")) return fail("user_not_found");
      if (!this.userInfo(user)) return fail("user_not_found");
      return { channel: { id: `D${user.replace(/^U/, "")}` } };
    },
    "conversations.info": (args) => {
      const id = String(args.channel ?? "");
      const channel = this.channels.get(id);
      if (!channel) return fail("channel_not_found");
      return { channel: this.channelWire(id, channel) };
    },
    "conversations.members": (args) => {
      const channel = this.channels.get(String(args.channel ?? ""));
      if (!channel) return fail("channel_not_found");
      return page(channel.members, args, (members) => ({ members }));
    },
    // The bot's own channels: Slack answers for the token's user when `user` is not given.
    "users.conversations": (args) => {
      const user = String(args.user ?? this.identity.botUserId);
      const mine = [...this.channels]
        .filter(([, c]) => c.members.includes(user) && !(args.exclude_archived && c.is_archived))
        .map(([id, c]) => this.channelWire(id, c));
      return page(mine, args, (channels) => ({ channels }));
    },
    "users.info": (args) => {
      const user = this.userInfo(String(args.user ?? ""));
      return user ? { user } : fail("user_not_found");
    },
    "files.info": (args) => {
      const file = this.files.get(String(args.file ?? ""));
      if (!file) return fail("file_not_found");
      const { content: _content, ...onWire } = file;
      return { file: onWire, comments: [], response_metadata: { next_cursor: "" } };
    },
  };

  /** The pane thread a call names, or Slack's error for it. */
  private paneThread(args: SlackArgs): FakeAssistantThread | SlackResult {
    const channel = String(args.channel_id);
    if (!channel.startsWith("D")) return fail("channel_not_found");
    if (!args.thread_ts) return fail("invalid_thread_ts");
    return this.assistantThreads.get(`${channel}:${args.thread_ts}`) ?? fail("invalid_thread_ts");
  }

  /** Opens a pane thread, as Slack does when a person opens the assistant pane: its root message, then the thread. */
  openAssistantThread(user: string, channel: string): FakeAssistantThread {
    const ts = this.nextTs();
    this.messages.push({
      channel,
      type: "message",
      ts,
      text: "New chat",
      user,
      team: this.identity.teamId,
      thread_ts: ts,
    });
    const pane: FakeAssistantThread = { channel, thread_ts: ts, user };
    this.assistantThreads.set(`${channel}:${ts}`, pane);
    return pane;
  }

  private streamOf(channel: string, ts: string): FakeSlackStream | undefined {
    return this.streams.find((s) => s.channel === channel && s.ts === ts);
  }

  private channelWire(id: string, channel: FakeSlackChannel): SlackResult {
    return {
      id,
      name: channel.name,
      is_channel: !channel.is_private,
      is_private: channel.is_private ?? false,
      is_archived: channel.is_archived ?? false,
      is_member: channel.members.includes(this.identity.botUserId),
      num_members: channel.members.length,
    };
  }

  private post(args: SlackArgs): SlackResult {
    if (!args.channel) return fail("channel_not_found");
    const declared = this.channels.get(String(args.channel));
    if (declared?.deleted) return fail("channel_not_found");
    if (declared?.is_archived) return fail("is_archived");
    if (declared && !declared.members.includes(this.identity.botUserId)) {
      return fail("not_in_channel");
    }
    if (args.text === undefined && args.blocks === undefined && args.attachments === undefined) {
      return fail("no_text");
    }
    const invalid = validateBlocks(args.blocks);
    if (invalid) return invalid;
    const parent = args.thread_ts ? this.find(args.channel, args.thread_ts) : undefined;
    const message: FakeSlackMessage = {
      channel: String(args.channel),
      type: "message",
      ts: this.nextTs(),
      text: String(args.text ?? "").slice(0, SLACK_TEXT_LIMIT),
      user: this.identity.botUserId,
      team: this.identity.teamId,
      bot_id: this.identity.botId,
      app_id: this.identity.appId,
      ...(Array.isArray(args.blocks) ? { blocks: args.blocks } : {}),
      ...(args.thread_ts ? { thread_ts: String(args.thread_ts) } : {}),
      ...(parent ? { parent_user_id: parent.user } : {}),
      ...(args.metadata ? { metadata: args.metadata } : {}),
    };
    this.messages.push(message);
    return { channel: message.channel, ts: message.ts, message: wire(message) };
  }

  private update(args: SlackArgs): SlackResult {
    if (!args.channel) return fail("channel_not_found");
    const message = this.find(args.channel, args.ts);
    if (!message) return fail("message_not_found");
    if (message.user !== this.identity.botUserId) return fail("cant_update_message");
    if (args.text === undefined && args.blocks === undefined && args.attachments === undefined) {
      return fail("no_text");
    }
    const invalid = validateBlocks(args.blocks);
    if (invalid) return invalid;
    if (args.text !== undefined) message.text = String(args.text).slice(0, SLACK_TEXT_LIMIT);
    if (Array.isArray(args.blocks)) message.blocks = args.blocks;
    message.edited = { user: this.identity.botUserId, ts: this.nextTs() };
    return { channel: message.channel, ts: message.ts, text: message.text, message: wire(message) };
  }

  private userInfo(id: string): SlackResult | undefined {
    const isBot = id === this.identity.botUserId;
    const user =
      this.users.get(id) ?? (isBot ? { name: this.identity.botName, is_bot: true } : undefined);
    if (!user) return undefined;
    const name = user.name ?? id.toLowerCase();
    const realName = user.real_name ?? name;
    const team = user.team_id ?? this.identity.teamId;
    return {
      id,
      team_id: team,
      name,
      deleted: user.deleted ?? false,
      real_name: realName,
      tz: user.tz ?? "Europe/Amsterdam",
      is_admin: user.is_admin ?? false,
      is_owner: user.is_owner ?? false,
      is_primary_owner: user.is_primary_owner ?? false,
      is_restricted: false,
      is_ultra_restricted: false,
      is_bot: user.is_bot ?? false,
      is_app_user: false,
      updated: 1_700_000_000,
      profile: {
        real_name: realName,
        real_name_normalized: realName,
        display_name: user.display_name ?? name,
        display_name_normalized: user.display_name ?? name,
        team,
        ...(isBot ? { bot_id: this.identity.botId, api_app_id: this.identity.appId } : {}),
      },
    };
  }

  private reactionKey(args: SlackArgs): Omit<FakeSlackReaction, "name"> {
    return {
      channel: String(args.channel ?? ""),
      timestamp: String(args.timestamp ?? ""),
      user: this.identity.botUserId,
    };
  }

  private reactionIndex(reaction: FakeSlackReaction): number {
    return this.reactions.findIndex(
      (r) =>
        r.channel === reaction.channel &&
        r.timestamp === reaction.timestamp &&
        r.name === reaction.name &&
        r.user === reaction.user,
    );
  }
}

/**
 * The text a stream call carries: `markdown_text`, or the text of its
 * `markdown_text` chunks (the SDK's ChatStreamer sends chunks); undefined
 * when it carries neither, "" for chunks of other kinds only.
 */
function streamedText(args: SlackArgs): string | undefined {
  if (typeof args.markdown_text === "string") return args.markdown_text;
  if (!Array.isArray(args.chunks)) return undefined;
  return args.chunks
    .filter((c: SlackResult) => c?.type === "markdown_text" && typeof c.text === "string")
    .map((c: SlackResult) => c.text as string)
    .join("");
}

/** The message as Slack sends it: without the fake's `channel` bookkeeping. */
function wire(message: FakeSlackMessage): SlackResult {
  const { channel: _channel, ...rest } = message;
  return rest;
}

function compareTs(a: string, b: string): number {
  const [aSec = 0, aMicro = 0] = a.split(".").map(Number);
  const [bSec = 0, bMicro = 0] = b.split(".").map(Number);
  return aSec - bSec || aMicro - bMicro;
}

/** Cursor paging as Slack does it: `limit` per page, an opaque `next_cursor` ("" at the end). */
function page<T>(
  items: readonly T[],
  args: SlackArgs,
  wrap: (items: T[]) => SlackResult,
): SlackResult {
  const limit = Math.max(1, Number(args.limit ?? 100));
  const start = args.cursor ? Number(Buffer.from(String(args.cursor), "base64").toString()) : 0;
  const end = start + limit;
  const next = end < items.length ? Buffer.from(String(end)).toString("base64") : "";
  return { ...wrap(items.slice(start, end)), response_metadata: { next_cursor: next } };
}
