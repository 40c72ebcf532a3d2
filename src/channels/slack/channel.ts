import { App, LogLevel, type Receiver } from "@slack/bolt";
import { WebClient } from "@slack/web-api";
import { isTooLong, tooLongReply } from "../../core/agent/inbound.ts";
import type { SwitchyardConfig } from "../../core/config/index.ts";
import { DEFAULT_SLACK, type SlackConfig } from "../../core/config/index.ts";
import { InboundMessageError } from "../../ports/enqueue.ts";
import type { Channel, ChannelRuntime } from "../channel.ts";
import { chatContextOf, routeChatText } from "../chat-commands.ts";
import { EventLedger } from "../event-ledger.ts";
import { passedGate } from "../gate-pass.ts";
import { registerSlackCommands, SLACK_COMMANDS } from "./commands.ts";
import { SlackDirectory } from "./directory.ts";
import { asTakeError, describe, SlackEventInFlightError } from "./errors.ts";
import { SlackFiles } from "./files.ts";
import {
  normalizeSlackEvent,
  readMessageEvent,
  type SessionScope,
  type SlackMessageEvent,
} from "./normalize.ts";
import type { SlackChannelOptions } from "./options.ts";
import { SlackOutbound } from "./outbound.ts";
import { installationTeam, messageEventId } from "./payload.ts";
import { SlackPeople } from "./people.ts";
import { slackHttpReceiver, slackSocketReceiver } from "./receiver.ts";
import { registerSharedSlackCommands, SLACK_SHARED_COMMANDS } from "./shared-commands.ts";

export type { SlackChannelOptions } from "./options.ts";

/** How long the bot remembers it is part of a thread. */
const THREAD_TTL_S = 30 * 24 * 3600;
/** At most this many people mentioned in one message are looked up by name. */
const MAX_NAMED = 50;

/**
 * Slack through `@slack/bolt`: mentions, DMs and replies in threads the bot
 * is in become messages on the queue (before Slack gets its ack, so a
 * failed enqueue is retried by Slack); `/tools`, `/skills` and their `!`
 * forms in threads are answered on the spot; the Block Kit buttons switch
 * tools and update the message in place. Every message, command and click
 * is taken once, by its own id in the {@link EventLedger}, however often
 * Slack (or a second ingress process) delivers it; receiver.ts answers
 * every other payload.
 */
export class SlackChannel implements Channel {
  #config: (() => SwitchyardConfig) | undefined;
  readonly platform = "slack";
  readonly outbound: SlackOutbound;
  readonly directory: SlackDirectory;
  readonly client: WebClient;
  #app: App | undefined;
  #ledger: EventLedger | undefined;
  #port: number | undefined;
  #botUserId: string;
  #botId: string;
  #teamId: string;
  readonly #people: SlackPeople;

  constructor(private readonly options: SlackChannelOptions) {
    this.client = new WebClient(options.botToken, {
      ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
      retryConfig: { retries: options.retries ?? 10 },
      logLevel: LogLevel.ERROR,
    });
    this.outbound = new SlackOutbound(
      this.client,
      new SlackFiles(this.client, options.botToken, options.apiUrl),
    );
    this.directory = new SlackDirectory(this.client);
    this.#botUserId = options.botUserId ?? "";
    this.#botId = options.botId ?? "";
    this.#teamId = options.teamId ?? "";
    this.#people = new SlackPeople(this.client, () => this.#teamId);
  }

  /** The port the Events API receiver listens on, once started. */
  get port(): number | undefined {
    return this.#port;
  }

  async start(runtime: ChannelRuntime): Promise<void> {
    this.#config = runtime.sources.config;
    const o = this.options;
    if (!this.#botUserId || !this.#botId) {
      const auth = await this.client.auth.test();
      this.#botUserId = auth.user_id as string;
      this.#botId = (auth.bot_id as string | undefined) ?? "";
      this.#teamId = (auth.team_id as string | undefined) ?? this.#teamId;
    }
    const prefix = runtime.sources.store.keys.prefix;
    this.#ledger = new EventLedger(
      runtime.redis,
      `${prefix}:slack:${this.#teamId || this.#botUserId}`,
    );
    const clientOptions = {
      ...(o.apiUrl ? { slackApiUrl: o.apiUrl } : {}),
      retryConfig: { retries: o.retries ?? 10 },
    };
    const ingress = {
      logger: runtime.logger,
      commands: [...SLACK_COMMANDS, ...SLACK_SHARED_COMMANDS],
    };
    let receiver: Receiver;
    if (o.appToken) {
      if (!o.appToken.startsWith("xapp-")) {
        throw new Error(
          "SLACK_APP_TOKEN must be an app-level token (xapp-…) with connections:write; a bot token (xoxb-…) goes in SLACK_BOT_TOKEN.",
        );
      }
      receiver = slackSocketReceiver({ ...ingress, appToken: o.appToken, clientOptions });
    } else {
      if (!o.signingSecret) {
        throw new Error(
          "The Slack channel needs SLACK_SIGNING_SECRET for the Events API, or SLACK_APP_TOKEN for Socket Mode.",
        );
      }
      receiver = slackHttpReceiver({ ...ingress, signingSecret: o.signingSecret });
    }
    this.#app = new App({
      token: o.botToken,
      botId: this.#botId,
      botUserId: this.#botUserId,
      clientOptions,
      logLevel: LogLevel.ERROR,
      ignoreSelf: true,
      receiver,
    });
    // Listener errors come back to the receiver, which logs them once (and answers 503 where due).
    this.#app.error(async (error) => {
      throw error;
    });
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
  }

  #register(app: App, runtime: ChannelRuntime): void {
    // Anything a listener cannot do leaves the event to Slack to deliver again (errors.ts).
    app.event("app_mention", async ({ event, body }) => {
      const e = readMessageEvent(event);
      if (!e) return;
      try {
        await this.#rememberThread(runtime, e);
        await this.#take(runtime, e, body);
      } catch (error) {
        throw asTakeError(error);
      }
    });
    app.message(async ({ message, body }) => {
      const e = readMessageEvent(message);
      if (!e) return;
      try {
        if (await this.#shouldAnswer(runtime, e)) await this.#take(runtime, e, body);
      } catch (error) {
        throw asTakeError(error);
      }
    });
    const commandDeps = {
      runtime,
      actor: (userId: string) => this.#people.actor(userId),
      teamId: () => this.#teamId,
      ledger: () => this.#ledgerOrThrow(),
    };
    registerSlackCommands(app, commandDeps);
    registerSharedSlackCommands(app, commandDeps);
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

  /**
   * Takes one message once: a retry, the app_mention twin of a message
   * event and a delivery to a second ingress process find it taken. One
   * over the text limit gets {@link tooLongReply}; a typed command is
   * answered in place; anything else goes on the queue.
   */
  async #take(runtime: ChannelRuntime, e: SlackMessageEvent, body: unknown): Promise<void> {
    const options = {
      teamId: installationTeam(body, this.#teamId),
      botUserId: this.#botUserId,
      session: this.#sessionOf(e.channel),
    };
    const probe = normalizeSlackEvent(e, options);
    if (!probe) return;
    const id = messageEventId(probe.channel, probe.messageRef ?? probe.eventId);
    const ledger = this.#ledgerOrThrow();
    const claim = await ledger.claim(id);
    if (claim === "done") return;
    if (claim === "taking") throw new SlackEventInFlightError(id);
    try {
      await this.#handle(runtime, e, options, isTooLong(probe.text) ? probe : undefined);
    } catch (error) {
      if (!(error instanceof InboundMessageError)) {
        await ledger.release(id).catch(() => {});
        throw asTakeError(error, id);
      }
      // The queue refused a field Slack never sends so (an id over 512 characters): no retry helps.
      runtime.logger.warn("dropped a Slack message the queue refused", { error: describe(error) });
    }
    await ledger.done(id);
  }

  async #handle(
    runtime: ChannelRuntime,
    e: SlackMessageEvent,
    options: Parameters<typeof normalizeSlackEvent>[1],
    tooLong: ReturnType<typeof normalizeSlackEvent>,
  ): Promise<void> {
    // Names for the sender and those mentioned, so the model reads "@Ada", not "<@U0123>".
    const names = tooLong ? new Map<string, string>() : await this.#namesIn(e);
    const message = tooLong ?? normalizeSlackEvent(e, { ...options, names });
    if (!message) return;
    const reply = (text: string) =>
      this.client.chat.postMessage({
        channel: message.channel,
        ...(message.thread ? { thread_ts: message.thread } : {}),
        text,
      });
    if (isTooLong(message.text)) return void (await reply(tooLongReply(message.text.length)));
    const refused = { say: reply };
    if (!(await passedGate(await runtime.gate.admit(message), refused))) return;
    const actor = await this.#people.actor(message.user);
    const outcome = await routeChatText(message.text, message, actor, chatContextOf(runtime));
    if (outcome.kind === "reply") return void (await reply(outcome.text));
    // A skill's instructions can carry a request near the limit over it.
    if (isTooLong(outcome.text)) return void (await reply(tooLongReply(outcome.text.length)));
    if (!(await passedGate(await runtime.gate.meter(message), refused))) return;
    await runtime.queue.enqueue({ ...message, text: outcome.text });
  }

  async #namesIn(e: SlackMessageEvent): Promise<Map<string, string>> {
    const ids = new Set<string>(e.user ? [e.user] : []);
    for (const m of (e.text ?? "").matchAll(/<@([A-Z0-9]+)/g)) {
      if (ids.size >= MAX_NAMED) break;
      ids.add(m[1] as string);
    }
    ids.delete(this.#botUserId);
    const names = new Map<string, string>();
    await Promise.all(
      [...ids].map(async (id) => {
        const name = await this.#people.name(id);
        if (name) names.set(id, name);
      }),
    );
    return names;
  }

  #ledgerOrThrow(): EventLedger {
    if (this.#ledger) return this.#ledger;
    throw new Error("The Slack channel takes events only once started: call start(runtime) first.");
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
    // Without settings of its own, the channel reads the bot's config (createBot's `config`).
    return this.options.settings?.() ?? this.#config?.().slack ?? DEFAULT_SLACK;
  }

  /** One conversation per thread or per channel: the channel's own setting, else the default. */
  #sessionOf(channel: string | undefined): SessionScope {
    const settings = this.#settings();
    return (channel && settings.channels[channel]?.session) || settings.session;
  }
}
