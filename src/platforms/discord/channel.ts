import { Client, Events, GatewayIntentBits, Options, Partials } from "discord.js";
import type { SwitchyardConfig } from "../../core/config/index.ts";
import { type Channel, type ChannelRuntime, withDirectory } from "../../ingress/channel.ts";
import { ChannelState } from "../../ingress/channel-state.ts";
import { DEFAULT_DISCORD, type DiscordConfig } from "./config-section.ts";
import { DiscordDirectory } from "./directory.ts";
import { guardPacketHandling, type PacketFailure } from "./gateway-guard.ts";
import { takeDiscordMessage } from "./ingress.ts";
import { answerUnreadable, routeInteraction } from "./interaction-router.ts";
import { DiscordOutbound } from "./outbound.ts";
import { type RegistrationOptions, registerCommandsFollowingGuilds } from "./registration.ts";
import type { DiscordChannelOptions } from "./settings.ts";

export type { DiscordChannelOptions } from "./settings.ts";

/** Where in the channel a failure it survived happened: the label of its counter. */
export type DiscordFailureStage = "gateway" | "interaction" | "message";

const INTERACTION_DEADLINE_MS = 20_000;

/**
 * Discord through discord.js's gateway: direct messages, mentions, replies to
 * the bot and every message in a thread it is part of become messages on the
 * queue; `!tools`, `!skills` and `!skill` typed in chat are answered on the
 * spot; `/tools` and `/skills` are application commands with components.
 *
 * The client keeps no message cache: the bot never reads old messages, and a
 * replayed MESSAGE_CREATE or INTERACTION_CREATE (after RESUME, or seen by two
 * ingress processes) is stopped by the channel's {@link ChannelState} on its
 * id in Redis, which also covers commands answered on the spot. ingress.ts
 * takes the messages; interaction-router.ts the commands and components.
 *
 * No payload ends the process: an event discord.js cannot parse is dropped
 * (an interaction among them still gets an answer), and every failure the
 * channel survives is logged and counted (`countFailuresWith`).
 */
export class DiscordChannel implements Channel {
  #config: (() => SwitchyardConfig) | undefined;
  readonly platform = "discord";
  readonly client: Client;
  readonly outbound: DiscordOutbound;
  readonly directory: DiscordDirectory;

  constructor(private readonly options: DiscordChannelOptions) {
    this.client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      partials: [Partials.Channel],
      makeCache: Options.cacheWithLimits({
        ...Options.DefaultMakeCacheSettings,
        MessageManager: 0,
      }),
      ...(options.apiUrl ? { rest: { api: options.apiUrl } } : {}),
    });
    this.outbound = new DiscordOutbound(this.client, options.apiUrl);
    this.directory = new DiscordDirectory(this.client);
    guardPacketHandling(this.client, (failure) => this.#packetFailed(failure));
  }

  #runtime: ChannelRuntime | undefined;
  #channelState: ChannelState | undefined;
  #count: (stage: DiscordFailureStage) => void = () => {};

  /** Counts every failure the channel survives, e.g. into `switchyard_channel_errors_total`. */
  countFailuresWith(count: (stage: DiscordFailureStage) => void): void {
    this.#count = count;
  }

  /** For a worker process: posts through REST with the token, no gateway session. */
  useRestOnly(): void {
    this.client.rest.setToken(this.options.token);
  }

  prepareWorker(): void {
    this.useRestOnly();
  }

  /** Logs in to the gateway (ingress), resolving once the client is ready. */
  async connect(): Promise<void> {
    if (this.client.isReady()) return;
    const ready = new Promise<void>((resolve) =>
      this.client.once(Events.ClientReady, () => resolve()),
    );
    await this.client.login(this.options.token);
    await ready;
  }

  async start(given: ChannelRuntime): Promise<void> {
    // `/schedule add ... in #channel` finds the channel through this channel's directory.
    const runtime = withDirectory(given, this.directory);
    this.#config = runtime.sources.config;
    this.#runtime = runtime;
    const context = {
      runtime,
      ledger: { take: (id: string, work: () => Promise<void>) => this.#take(id, work) },
      deadlineMs: this.options.interactionDeadlineMs ?? INTERACTION_DEADLINE_MS,
      ...(this.options.account ? { account: this.options.account } : {}),
      report: (error: unknown, fields: Record<string, unknown>) =>
        this.#failed("interaction", "a Discord interaction failed", error, fields),
    };
    const ingress = {
      runtime,
      botId: () => this.client.user?.id ?? "",
      state: () => this.#state(),
      settings: () => this.#settings(),
      ...(this.options.account ? { account: this.options.account } : {}),
    };
    this.client.on(Events.InteractionCreate, (interaction) => {
      routeInteraction(interaction, context).catch((error: unknown) =>
        context.report(error, { interaction: interaction.id }),
      );
    });
    this.client.on(Events.MessageCreate, (message) => {
      takeDiscordMessage(message, ingress).catch((error: unknown) =>
        this.#failed("message", "a Discord message could not be taken", error, {
          message: message.id,
        }),
      );
    });
    await this.connect();
    await registerCommandsFollowingGuilds(this.client, this.#registration(runtime));
  }

  async stop(): Promise<void> {
    await this.client.destroy();
  }

  /** Which application and scope the commands go to; a DISCORD_APPLICATION_ID that is not the bot's is worth a warning. */
  #registration(runtime: ChannelRuntime): RegistrationOptions {
    const loggedIn = this.client.application?.id;
    const configured = this.options.applicationId;
    if (configured && loggedIn && configured !== loggedIn) {
      runtime.logger.warn(
        `DISCORD_APPLICATION_ID is ${configured}, but the token belongs to application ${loggedIn}; registering the commands for ${configured}. Unset DISCORD_APPLICATION_ID or set it to ${loggedIn} if the commands do not appear.`,
        { configured, loggedIn },
      );
    }
    return {
      scope: this.options.commands ?? this.#settings().commands,
      applicationId: configured ?? loggedIn ?? "",
      redis: runtime.redis,
      keys: runtime.sources.store.keys,
      logger: runtime.logger,
    };
  }

  /**
   * The bot's events in the ledger, under its own user id: two bots sharing
   * a Redis prefix both see a message that mentions them both.
   */
  #state(): ChannelState {
    const runtime = this.#runtime;
    if (!runtime) throw new Error("the Discord channel took an event before start()");
    this.#channelState ??= new ChannelState(
      runtime.redis,
      runtime.sources.store.keys,
      "discord",
      this.client.user?.id ?? "bot",
    );
    return this.#channelState;
  }

  #take(id: string, work: () => Promise<void>): Promise<boolean> {
    return this.#state().events.take(id, work);
  }

  /** Logs and counts a failure the channel survived. */
  #failed(
    stage: DiscordFailureStage,
    message: string,
    error: unknown,
    fields: Record<string, unknown> = {},
  ): void {
    this.#count(stage);
    this.#runtime?.logger.warn(message, {
      ...fields,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  }

  /**
   * discord.js could not handle a gateway event. It is dropped; an
   * interaction among them is still answered, from its raw id and token, so
   * the person is not left with "the application did not respond".
   */
  #packetFailed(failure: PacketFailure): void {
    this.#failed(
      "gateway",
      `discord.js could not handle a ${failure.event} event; it was dropped`,
      failure.error,
      { event: failure.event, sequence: failure.packet.s ?? null },
    );
    if (failure.event !== "INTERACTION_CREATE" || !this.#runtime) return;
    answerUnreadable(this.client, failure.packet.d, (id, work) => this.#take(id, work)).catch(
      (error: unknown) =>
        this.#failed(
          "interaction",
          "an unreadable Discord interaction could not be answered",
          error,
        ),
    );
  }

  #settings(): DiscordConfig {
    // Without settings of its own, the channel reads the bot's config (createBot's `config`).
    return this.options.settings?.() ?? this.#config?.().discord ?? DEFAULT_DISCORD;
  }
}
