import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import { WebClient } from "@slack/web-api";
import type { Actor, CommandPolicy } from "../../core/commands/index.ts";
import { DEFAULT_SLACK, type SlackConfig } from "../../core/config/index.ts";
import type { Channel, ChannelRuntime } from "../channel.ts";
import { routeChatText } from "../chat-commands.ts";
import { registerSlackCommands } from "./commands.ts";
import { SlackDirectory } from "./directory.ts";
import { normalizeSlackEvent, type SessionScope, type SlackMessageEvent } from "./normalize.ts";
import { SlackOutbound } from "./outbound.ts";

export interface SlackChannelOptions {
  readonly botToken: string;
  /** Events API over HTTP: requests are verified with it. */
  readonly signingSecret?: string;
  /** Socket Mode instead of HTTP when set. */
  readonly appToken?: string;
  /** The Web API base (GovSlack, a proxy, or a test's fake), ending in `/api/`. */
  readonly apiUrl?: string;
  /** Where the Events API receiver listens (`SWITCHYARD_HTTP_PORT`); events at /slack/events. */
  readonly port?: number;
  readonly host?: string;
  /** The bot's ids; when both are given the app skips `auth.test` at start. */
  readonly botId?: string;
  readonly botUserId?: string;
  readonly teamId?: string;
  /** The config's `slack:` section, read on every event so a reload applies at once. */
  readonly settings?: () => SlackConfig;
  /** WebClient retries (rate limits are always waited out); tests use 0. */
  readonly retries?: number;
}

interface SocketEventArgs {
  body?: { type?: string };
  ack: (response?: unknown) => Promise<void>;
  retry_num?: number;
  retry_reason?: string;
}

interface SocketModeInternals {
  client: {
    listeners(event: string): ((args: SocketEventArgs) => Promise<void>)[];
    removeAllListeners(event: string): void;
    on(event: string, listener: (args: SocketEventArgs) => Promise<void>): void;
    disconnect?: () => Promise<void>;
  };
  app?: { processEvent(event: unknown): Promise<void> };
}

function socketClientOf(app: App | undefined): SocketModeInternals["client"] | undefined {
  return (app as unknown as { receiver?: Partial<SocketModeInternals> } | undefined)?.receiver
    ?.client;
}

/**
 * In Socket Mode, Bolt acks every event before its listeners run, so a
 * message that could not be queued (Redis down) would be lost: Slack only
 * redelivers what was not acked. This holds an event's ack until the
 * listeners have finished, as processBeforeResponse does over HTTP; commands
 * and clicks keep Bolt's own handling (their ack carries the reply).
 */
function holdEventAcks(app: App, runtime: ChannelRuntime): void {
  const receiver = (app as unknown as { receiver: SocketModeInternals }).receiver;
  const [bolts] = receiver.client.listeners("slack_event");
  if (!bolts) return;
  receiver.client.removeAllListeners("slack_event");
  receiver.client.on("slack_event", async (args) => {
    if (args.body?.type !== "event_callback") return bolts(args);
    try {
      await receiver.app?.processEvent({
        body: args.body,
        ack: async () => {},
        retryNum: args.retry_num,
        retryReason: args.retry_reason,
        customProperties: {},
      });
      await args.ack();
    } catch (error) {
      runtime.logger.warn("a Slack event could not be taken; Slack will deliver it again", {
        error: (error as Error)?.message,
      });
    }
  });
}

/** How long a user's admin flag from users.info is trusted. */
const USER_CACHE_MS = 5 * 60_000;
/** How long the bot remembers it is part of a thread. */
const THREAD_TTL_S = 30 * 24 * 3600;

/**
 * Slack through `@slack/bolt`: mentions, DMs and replies in threads the bot
 * is in become messages on the queue (before Slack gets its ack, so a failed
 * enqueue is retried by Slack, and retries dedupe on the message's ts);
 * `/tools`, `/skills` and their `!` forms in threads are answered on the
 * spot; the Block Kit buttons switch tools and update the message in place.
 */
export class SlackChannel implements Channel {
  readonly platform = "slack";
  readonly outbound: SlackOutbound;
  readonly directory: SlackDirectory;
  readonly client: WebClient;
  #app: App | undefined;
  #port: number | undefined;
  #botUserId: string;
  #botId: string;
  #teamId: string;
  readonly #users = new Map<string, { admin: boolean; name: string | undefined; at: number }>();

  constructor(private readonly options: SlackChannelOptions) {
    this.client = new WebClient(options.botToken, {
      ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
      retryConfig: { retries: options.retries ?? 10 },
      logLevel: LogLevel.ERROR,
    });
    this.outbound = new SlackOutbound(this.client);
    this.directory = new SlackDirectory(this.client);
    this.#botUserId = options.botUserId ?? "";
    this.#botId = options.botId ?? "";
    this.#teamId = options.teamId ?? "";
  }

  /** The port the Events API receiver listens on, once started. */
  get port(): number | undefined {
    return this.#port;
  }

  async start(runtime: ChannelRuntime): Promise<void> {
    const o = this.options;
    if (!this.#botUserId || !this.#botId) {
      const auth = await this.client.auth.test();
      this.#botUserId = auth.user_id as string;
      this.#botId = (auth.bot_id as string | undefined) ?? "";
      this.#teamId = (auth.team_id as string | undefined) ?? this.#teamId;
    }
    const clientOptions = {
      ...(o.apiUrl ? { slackApiUrl: o.apiUrl } : {}),
      retryConfig: { retries: o.retries ?? 10 },
    };
    const common = {
      token: o.botToken,
      botId: this.#botId,
      botUserId: this.#botUserId,
      clientOptions,
      logLevel: LogLevel.ERROR,
      ignoreSelf: true,
    };
    if (o.appToken) {
      if (!o.appToken.startsWith("xapp-")) {
        throw new Error(
          "SLACK_APP_TOKEN must be an app-level token (xapp-…) with connections:write; a bot token (xoxb-…) goes in SLACK_BOT_TOKEN.",
        );
      }
      this.#app = new App({ ...common, socketMode: true, appToken: o.appToken });
      holdEventAcks(this.#app, runtime);
    } else {
      if (!o.signingSecret) {
        throw new Error(
          "The Slack channel needs SLACK_SIGNING_SECRET for the Events API, or SLACK_APP_TOKEN for Socket Mode.",
        );
      }
      // processBeforeResponse: the ack goes out after the handler, so a message is
      // on the queue before Slack hears it arrived; handlers only enqueue, well within 3 s.
      const receiver = new HTTPReceiver({
        signingSecret: o.signingSecret,
        endpoints: "/slack/events",
        processBeforeResponse: true,
        logLevel: LogLevel.ERROR,
      });
      this.#app = new App({ ...common, receiver });
    }
    this.#register(this.#app, runtime);
    const server = (await this.#app.start({ port: o.port ?? 3000, host: o.host ?? "0.0.0.0" })) as
      | { address(): { port: number } | string | null }
      | undefined;
    const address = server?.address?.();
    this.#port = typeof address === "object" && address ? address.port : o.port;
  }

  async stop(): Promise<void> {
    const app = this.#app;
    this.#app = undefined;
    await app?.stop();
    // Bolt's Socket Mode stop does not wait for the socket to close; wait for it here.
    await socketClientOf(app)?.disconnect?.();
  }

  #register(app: App, runtime: ChannelRuntime): void {
    app.event("app_mention", async ({ event, body }) => {
      const e = event as unknown as SlackMessageEvent;
      await this.#rememberThread(runtime, e);
      await this.#take(runtime, e, (body as { team_id?: string }).team_id);
    });
    app.message(async ({ message, body }) => {
      const e = message as unknown as SlackMessageEvent;
      if (!(await this.#shouldAnswer(runtime, e))) return;
      await this.#take(runtime, e, (body as { team_id?: string }).team_id);
    });
    registerSlackCommands(app, {
      runtime,
      actor: (userId) => this.#actor(userId),
      teamId: () => this.#teamId,
    });
  }

  /** DMs, and messages in threads the bot is part of; mentions come as app_mention. */
  async #shouldAnswer(runtime: ChannelRuntime, e: SlackMessageEvent): Promise<boolean> {
    if (e.bot_id && (e.bot_id === this.#botId || !this.#settings().answerBots)) return false;
    if (e.user === this.#botUserId) return false;
    if (e.channel_type === "im") return true;
    if (e.text?.includes(`<@${this.#botUserId}>`)) return false; // the app_mention event answers it
    if (!e.thread_ts || !e.channel) return false;
    return this.#inThread(runtime, e.channel, e.thread_ts);
  }

  async #take(
    runtime: ChannelRuntime,
    e: SlackMessageEvent,
    teamId: string | undefined,
  ): Promise<void> {
    // Names for the sender and everyone mentioned, so the model reads "@Ada", not "<@U0123>".
    const ids = new Set([...(e.text ?? "").matchAll(/<@([A-Z0-9]+)/g)].map((m) => m[1] as string));
    if (e.user) ids.add(e.user);
    ids.delete(this.#botUserId);
    const names = new Map<string, string>();
    await Promise.all(
      [...ids].map(async (id) => {
        const name = (await this.#user(id)).name;
        if (name) names.set(id, name);
      }),
    );
    const message = normalizeSlackEvent(e, {
      teamId: teamId ?? this.#teamId,
      botUserId: this.#botUserId,
      session: this.#sessionOf(e.channel),
      names,
    });
    if (!message) return;
    const actor = await this.#actor(message.user);
    const outcome = await routeChatText(message.text, message, actor, chatContext(runtime));
    if (outcome.kind === "reply") {
      await this.client.chat.postMessage({
        channel: message.channel,
        ...(message.thread ? { thread_ts: message.thread } : {}),
        text: outcome.text,
      });
      return;
    }
    await runtime.queue.enqueue({ ...message, text: outcome.text });
  }

  async #rememberThread(runtime: ChannelRuntime, e: SlackMessageEvent): Promise<void> {
    if (!e.channel || !e.ts) return;
    await runtime.redis.set(
      this.#threadKey(runtime, e.channel, e.thread_ts ?? e.ts),
      "1",
      "EX",
      THREAD_TTL_S,
    );
  }

  async #inThread(runtime: ChannelRuntime, channel: string, thread: string): Promise<boolean> {
    return (await runtime.redis.exists(this.#threadKey(runtime, channel, thread))) === 1;
  }

  #threadKey(runtime: ChannelRuntime, channel: string, thread: string): string {
    const tag = runtime.sources.store.keys.scope("workspace", {
      platform: "slack",
      workspace: this.#teamId,
    });
    return `${tag.replace(/:scope$/, "")}:thread:${channel}:${thread}`;
  }

  #settings(): SlackConfig {
    return this.options.settings?.() ?? DEFAULT_SLACK;
  }

  /** One conversation per thread or per channel: the channel's own setting, else the default. */
  #sessionOf(channel: string | undefined): SessionScope {
    const settings = this.#settings();
    return (channel && settings.channels[channel]?.session) || settings.session;
  }

  /** The person, and whether Slack says they administer the workspace (users.info, cached). */
  async #actor(userId: string): Promise<Actor> {
    return { id: `slack:${userId}`, isPlatformAdmin: (await this.#user(userId)).admin };
  }

  async #user(userId: string): Promise<{ admin: boolean; name: string | undefined }> {
    const cached = this.#users.get(userId);
    if (cached && Date.now() - cached.at < USER_CACHE_MS) return cached;
    let entry = { admin: false, name: undefined as string | undefined, at: Date.now() };
    try {
      const { user } = await this.client.users.info({ user: userId });
      entry = {
        admin: Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner),
        name: user?.profile?.display_name || user?.real_name || user?.name || undefined,
        at: Date.now(),
      };
    } catch {
      // An unknown user is no admin and keeps their id.
    }
    this.#users.set(userId, entry);
    return entry;
  }
}

function policyOf(runtime: ChannelRuntime): CommandPolicy {
  return runtime.permissions();
}

function chatContext(runtime: ChannelRuntime) {
  return {
    sources: runtime.sources,
    policy: policyOf(runtime),
    ...(runtime.skills ? { skills: runtime.skills } : {}),
  };
}
