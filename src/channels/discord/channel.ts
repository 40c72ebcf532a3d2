import {
  Client,
  Events,
  GatewayIntentBits,
  type Guild,
  type Message,
  Options,
  Partials,
  PermissionFlagsBits,
} from "discord.js";
import { isTooLong, tooLongReply } from "../../core/agent/inbound.ts";
import type { Actor } from "../../core/commands/index.ts";
import {
  DEFAULT_DISCORD,
  type DiscordConfig,
  type DiscordConversation,
} from "../../core/config/discord-section.ts";
import type { SwitchyardConfig } from "../../core/config/index.ts";
import type { Channel, ChannelRuntime } from "../channel.ts";
import { chatContextOf, routeChatText } from "../chat-commands.ts";
import { EventLedger } from "../event-ledger.ts";
import { passedGate } from "../gate-pass.ts";
import {
  type RegistrationOptions,
  registerCommands,
  registerInGuild,
  registerInGuildOnce,
} from "./commands.ts";
import { DiscordDirectory } from "./directory.ts";
import { guardPacketHandling, type PacketFailure } from "./gateway-guard.ts";
import { answerUnreadable, routeInteraction } from "./interaction-router.ts";
import { type DiscordMessageLike, normalizeDiscordMessage } from "./normalize.ts";
import type { DiscordChannelOptions } from "./options.ts";
import { DiscordOutbound } from "./outbound.ts";

export type { DiscordChannelOptions } from "./options.ts";

/** Where in the channel a failure it survived happened: the label of its counter. */
export type DiscordFailureStage = "gateway" | "interaction" | "message";

/** How long the bot remembers it is part of a thread. */
const THREAD_TTL_S = 30 * 24 * 3600;
const INTERACTION_DEADLINE_MS = 20_000;

/**
 * Discord through discord.js's gateway: direct messages, mentions, replies to
 * the bot and every message in a thread it is part of become messages on the
 * queue; `!tools`, `!skills` and `!skill` typed in chat are answered on the
 * spot; `/tools` and `/skills` are application commands with components.
 *
 * The client keeps no message cache: the bot never reads old messages, and a
 * replayed MESSAGE_CREATE or INTERACTION_CREATE (after RESUME, or seen by two
 * ingress processes) is stopped by the {@link EventLedger} on its id in
 * Redis, which also covers commands answered on the spot.
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
  #ledger: EventLedger | undefined;
  #count: (stage: DiscordFailureStage) => void = () => {};

  /** Counts every failure the channel survives, e.g. into `switchyard_channel_errors_total`. */
  countFailuresWith(count: (stage: DiscordFailureStage) => void): void {
    this.#count = count;
  }

  /** For a worker process: posts through REST with the token, no gateway session. */
  useRestOnly(): void {
    this.client.rest.setToken(this.options.token);
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

  async start(runtime: ChannelRuntime): Promise<void> {
    this.#config = runtime.sources.config;
    this.#runtime = runtime;
    const context = {
      runtime,
      ledger: { take: (id: string, work: () => Promise<void>) => this.#take(id, work) },
      deadlineMs: this.options.interactionDeadlineMs ?? INTERACTION_DEADLINE_MS,
      report: (error: unknown, fields: Record<string, unknown>) =>
        this.#failed("interaction", "a Discord interaction failed", error, fields),
    };
    this.client.on(Events.InteractionCreate, (interaction) => {
      routeInteraction(interaction, context).catch((error: unknown) =>
        context.report(error, { interaction: interaction.id }),
      );
    });
    this.client.on(Events.MessageCreate, (message) => {
      this.#takeMessage(runtime, message).catch((error: unknown) =>
        this.#failed("message", "a Discord message could not be taken", error, {
          message: message.id,
        }),
      );
    });
    await this.connect();
    const registration = this.#registration(runtime);
    await registerCommands(this.client, registration);
    if (registration.scope === "guild") {
      const register = (guild: Guild, once: boolean) =>
        (once ? registerInGuildOnce : registerInGuild)(this.client, registration, guild.id).catch(
          (error: unknown) =>
            runtime.logger.warn("the commands could not be registered in a new guild", {
              guild: guild.id,
              error: (error as Error)?.message,
            }),
        );
      // A guild joined while it is unavailable (an outage) is registered when it becomes available.
      this.client.on(Events.GuildCreate, (guild) => {
        if (guild.available) void register(guild, false);
      });
      this.client.on(Events.GuildAvailable, (guild) => void register(guild, true));
    }
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
      keyPrefix: runtime.sources.store.keys.prefix,
      logger: runtime.logger,
    };
  }

  /**
   * A message meant for the bot, once: the first delivery wins the ledger's
   * claim on `message:<id>`; a replay (RESUME, a second ingress process)
   * finds it taken. The queue dedupes turns on the id too, but a command
   * answered on the spot, or a message answered as too long, never reaches it.
   */
  async #takeMessage(runtime: ChannelRuntime, message: Message): Promise<void> {
    const botId = this.client.user?.id ?? "";
    if (message.author.id === botId) return;
    // Joins, pins, boosts, "started a thread": Discord's notices, not anyone talking.
    if (message.system) return;
    if (message.author.bot && !this.#settings().answerBots) return;
    if (!(await this.#forMe(runtime, message, botId))) return;
    const inbound = normalizeDiscordMessage(message as unknown as DiscordMessageLike, {
      botUserId: botId,
      conversation: this.#conversationOf(message),
    });
    if (!inbound) return;
    await this.#take(`message:${message.id}`, async () => {
      if (message.channel.isThread()) await this.#rememberThread(runtime, message.channelId);
      if (isTooLong(inbound.text)) {
        await this.#reply(message, tooLongReply(inbound.text.length));
        return;
      }
      const refused = { say: (text: string) => this.#reply(message, text) };
      if (!(await passedGate(await runtime.gate.admit(inbound), refused))) return;
      const outcome = await routeChatText(
        inbound.text,
        inbound,
        this.#actor(message),
        chatContextOf(runtime),
      );
      if (outcome.kind === "reply") {
        await this.#reply(message, outcome.text);
        return;
      }
      if (!(await passedGate(await runtime.gate.meter(inbound), refused))) return;
      await runtime.queue.enqueue({ ...inbound, text: outcome.text });
    });
  }

  async #reply(message: Message, text: string): Promise<void> {
    await message.reply({ content: text.slice(0, 2_000), allowedMentions: { parse: [] } });
  }

  /**
   * The bot's events in the ledger, under its own user id: two bots sharing
   * a Redis prefix both see a message that mentions them both.
   */
  async #take(id: string, work: () => Promise<void>): Promise<boolean> {
    const runtime = this.#runtime;
    if (!runtime) throw new Error("the Discord channel took an event before start()");
    this.#ledger ??= new EventLedger(
      runtime.redis,
      `${runtime.sources.store.keys.prefix}:discord:${this.client.user?.id ?? "bot"}`,
    );
    return this.#ledger.take(id, work);
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

  /** DMs, mentions, replies to the bot, and threads it is part of. */
  async #forMe(runtime: ChannelRuntime, message: Message, botId: string): Promise<boolean> {
    if (!message.guildId) return true;
    if (message.mentions.users.has(botId)) return true;
    if (message.mentions.repliedUser?.id === botId) return true;
    if (message.channel.isThread()) {
      if (message.channel.ownerId === botId) return true;
      return (await runtime.redis.exists(this.#threadKey(runtime, message.channelId))) === 1;
    }
    return false;
  }

  #settings(): DiscordConfig {
    // Without settings of its own, the channel reads the bot's config (createBot's `config`).
    return this.options.settings?.() ?? this.#config?.().discord ?? DEFAULT_DISCORD;
  }

  /** Thread or channel: the setting of the channel (a thread's parent), else the default. */
  #conversationOf(message: Message): DiscordConversation {
    const settings = this.#settings();
    const channel = message.channel.isThread()
      ? (message.channel.parentId ?? message.channelId)
      : message.channelId;
    return settings.channels[channel]?.conversation ?? settings.conversation;
  }

  async #rememberThread(runtime: ChannelRuntime, threadId: string): Promise<void> {
    await runtime.redis.set(this.#threadKey(runtime, threadId), "1", "EX", THREAD_TTL_S);
  }

  #threadKey(runtime: ChannelRuntime, threadId: string): string {
    return `${runtime.sources.store.keys.prefix}:discord:thread:${threadId}`;
  }

  /** Manage Server makes a platform admin. */
  #actor(message: Message): Actor {
    return {
      id: `discord:${message.author.id}`,
      isPlatformAdmin: Boolean(message.member?.permissions.has(PermissionFlagsBits.ManageGuild)),
    };
  }
}
