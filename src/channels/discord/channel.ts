import {
  Client,
  Events,
  GatewayIntentBits,
  type Message,
  Options,
  Partials,
  PermissionFlagsBits,
} from "discord.js";
import type { Actor } from "../../core/commands/index.ts";
import {
  DEFAULT_DISCORD,
  type DiscordCommandScope,
  type DiscordConfig,
  type DiscordConversation,
} from "../../core/config/discord-section.ts";
import type { Channel, ChannelRuntime } from "../channel.ts";
import { routeChatText } from "../chat-commands.ts";
import { type RegistrationOptions, registerCommands, registerInGuild } from "./commands.ts";
import { isListClick } from "./custom-id.ts";
import { DiscordDirectory } from "./directory.ts";
import { answerAutocomplete, answerCommand, answerListClick } from "./interactions.ts";
import { type DiscordMessageLike, normalizeDiscordMessage } from "./normalize.ts";
import { DiscordOutbound } from "./outbound.ts";

export interface DiscordChannelOptions {
  readonly token: string;
  /** The REST base, e.g. a proxy or a test's fake: `http://host/api`. */
  readonly apiUrl?: string;
  /** The config's `discord:` section, read on every message so a reload applies at once. */
  readonly settings?: () => DiscordConfig;
  /** Where the commands are registered, over the config's `commands:` (DISCORD_COMMANDS). */
  readonly commands?: DiscordCommandScope;
  /** DISCORD_APPLICATION_ID: registers the commands for it instead of the one the client logs in as. */
  readonly applicationId?: string;
}

/** How long the bot remembers it is part of a thread. */
const THREAD_TTL_S = 30 * 24 * 3600;
/** How long a message id is remembered: a RESUME replays minutes, not days. */
const SEEN_TTL_S = 24 * 3600;

/**
 * Discord through discord.js's gateway: direct messages, mentions, replies to
 * the bot and every message in a thread it is part of become messages on the
 * queue; `!tools`, `!skills` and `!skill` typed in chat are answered on the
 * spot; `/tools` and `/skills` are application commands with components.
 *
 * The client keeps no message cache: the bot never reads old messages, and a
 * replayed MESSAGE_CREATE (after RESUME, or seen by two ingress processes)
 * is stopped by the channel's own dedupe on the message id in Redis, which
 * also covers commands answered on the spot.
 */
export class DiscordChannel implements Channel {
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
    this.outbound = new DiscordOutbound(this.client);
    this.directory = new DiscordDirectory(this.client);
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
    this.client.on(Events.InteractionCreate, (interaction) => {
      const work = interaction.isChatInputCommand()
        ? answerCommand(interaction, runtime)
        : interaction.isAutocomplete()
          ? answerAutocomplete(interaction, runtime)
          : (interaction.isButton() || interaction.isStringSelectMenu()) &&
              isListClick(interaction.customId)
            ? answerListClick(interaction, runtime)
            : Promise.resolve();
      work.catch((error: unknown) =>
        runtime.logger.warn("a Discord interaction failed", { error: (error as Error)?.message }),
      );
    });
    this.client.on(Events.MessageCreate, (message) => {
      this.#take(runtime, message).catch((error: unknown) =>
        runtime.logger.warn("a Discord message could not be taken", {
          error: (error as Error)?.message,
        }),
      );
    });
    await this.connect();
    const registration = this.#registration(runtime);
    await registerCommands(this.client, registration);
    if (registration.scope === "guild") {
      this.client.on(Events.GuildCreate, (guild) => {
        registerInGuild(this.client, registration, guild.id).catch((error: unknown) =>
          runtime.logger.warn("the commands could not be registered in a new guild", {
            guild: guild.id,
            error: (error as Error)?.message,
          }),
        );
      });
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

  async #take(runtime: ChannelRuntime, message: Message): Promise<void> {
    const botId = this.client.user?.id ?? "";
    if (message.author.id === botId) return;
    if (message.author.bot && !this.#settings().answerBots) return;
    if (!(await this.#forMe(runtime, message, botId))) return;
    const inbound = normalizeDiscordMessage(message as unknown as DiscordMessageLike, {
      botUserId: botId,
      conversation: this.#conversationOf(message),
    });
    if (!inbound) return;
    if (!(await this.#claim(runtime, message.id))) return;
    try {
      if (message.channel.isThread()) await this.#rememberThread(runtime, message.channelId);
      const outcome = await routeChatText(inbound.text, inbound, this.#actor(message), {
        sources: runtime.sources,
        policy: runtime.permissions(),
        ...(runtime.skills ? { skills: runtime.skills } : {}),
      });
      if (outcome.kind === "reply") {
        await message.reply({
          content: outcome.text.slice(0, 2_000),
          allowedMentions: { parse: [] },
        });
        return;
      }
      await runtime.queue.enqueue({ ...inbound, text: outcome.text });
    } catch (error) {
      // Not taken after all: a later delivery of the same message may try again.
      await runtime.redis.del(this.#seenKey(runtime, message.id)).catch(() => {});
      throw error;
    }
  }

  /**
   * The first delivery of a message wins; a replay (RESUME, a second ingress
   * process) finds the id taken. The queue dedupes turns on the id too, but
   * a command answered on the spot never reaches it.
   */
  async #claim(runtime: ChannelRuntime, messageId: string): Promise<boolean> {
    const set = await runtime.redis.set(
      this.#seenKey(runtime, messageId),
      "1",
      "EX",
      SEEN_TTL_S,
      "NX",
    );
    return set === "OK";
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
    return this.options.settings?.() ?? DEFAULT_DISCORD;
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

  #seenKey(runtime: ChannelRuntime, messageId: string): string {
    return `${runtime.sources.store.keys.prefix}:discord:seen:${messageId}`;
  }

  /** Manage Server makes a platform admin. */
  #actor(message: Message): Actor {
    return {
      id: `discord:${message.author.id}`,
      isPlatformAdmin: Boolean(message.member?.permissions.has(PermissionFlagsBits.ManageGuild)),
    };
  }
}
