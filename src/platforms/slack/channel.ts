import { App, LogLevel, type Receiver } from "@slack/bolt";
import { WebClient } from "@slack/web-api";
import type { SwitchyardConfig } from "../../core/config/index.ts";
import { type Channel, type ChannelRuntime, withDirectory } from "../../ingress/channel.ts";
import { ChannelState } from "../../ingress/channel-state.ts";
import { SlackAppRouter } from "./app-router.ts";
import { SlackAssistant } from "./assistant.ts";
import { SLACK_COMMANDS } from "./commands.ts";
import { DEFAULT_SLACK, type SlackConfig } from "./config-section.ts";
import { SlackDirectory } from "./directory.ts";
import { SlackFiles } from "./files.ts";
import { registerSlackIngress } from "./ingress.ts";
import { SlackOutbound } from "./outbound.ts";
import { SlackPeople } from "./people.ts";
import { slackHttpReceiver, slackSocketReceiver } from "./receiver.ts";
import type { SlackChannelOptions } from "./settings.ts";
import { SLACK_SWITCHYARD_COMMAND } from "./shared-commands.ts";

export type { SlackChannelOptions } from "./settings.ts";

/**
 * Slack through `@slack/bolt`: ingress.ts takes mentions, DMs and replies in
 * threads the bot is in, and the commands (commands.ts); the Block Kit
 * buttons switch tools and update the message in place. Every message,
 * command and click is taken once, by its own id in the channel's
 * {@link ChannelState}, however often Slack (or a second ingress process)
 * delivers it; receiver.ts answers every other payload.
 */
export class SlackChannel implements Channel {
  #config: (() => SwitchyardConfig) | undefined;
  readonly platform = "slack";
  readonly outbound: SlackOutbound;
  readonly directory: SlackDirectory;
  readonly client: WebClient;
  #app: App | undefined;
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
      () => this.#settings().streaming,
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

  async start(given: ChannelRuntime): Promise<void> {
    // `/schedule add ... in #channel` finds the channel through this channel's directory.
    const runtime = withDirectory(given, this.directory);
    this.#config = runtime.sources.config;
    const o = this.options;
    if (!this.#botUserId || !this.#botId) {
      const auth = await this.client.auth.test();
      this.#botUserId = auth.user_id as string;
      this.#botId = (auth.bot_id as string | undefined) ?? "";
      this.#teamId = (auth.team_id as string | undefined) ?? this.#teamId;
    }
    const identity = {
      botUserId: this.#botUserId,
      botId: this.#botId,
      teamId: this.#teamId,
      ...(o.account ? { account: o.account } : {}),
    };
    // Two apps in one workspace see the same messages: each takes them once, on its own.
    const state = new ChannelState(
      runtime.redis,
      runtime.sources.store.keys,
      o.account ? `slack@${o.account}` : "slack",
      identity.teamId || identity.botUserId,
    );
    const clientOptions = {
      ...(o.apiUrl ? { slackApiUrl: o.apiUrl } : {}),
      retryConfig: { retries: o.retries ?? 10 },
    };
    const ingress = {
      logger: runtime.logger,
      // What the manifests register, named to someone who typed a command they do not.
      commands: [...SLACK_COMMANDS, SLACK_SWITCHYARD_COMMAND],
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
      const route = o.listener
        ? {
            router: SlackAppRouter.of(o.listener, runtime.logger),
            ...(o.appId ? { appId: o.appId } : {}),
          }
        : undefined;
      receiver = slackHttpReceiver({
        ...ingress,
        signingSecret: o.signingSecret,
        ...(route ? { route } : {}),
      });
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
    const assistant = new SlackAssistant({
      runtime,
      client: this.client,
      teamId: () => identity.teamId,
      settings: () => this.#settings(),
    });
    assistant.register(this.#app);
    registerSlackIngress(this.#app, {
      runtime,
      client: this.client,
      people: this.#people,
      state,
      identity,
      settings: () => this.#settings(),
      assistant,
    });
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

  #settings(): SlackConfig {
    // Without settings of its own, the channel reads the bot's config (createBot's `config`).
    return this.options.settings?.() ?? this.#config?.().slack ?? DEFAULT_SLACK;
  }
}
