import {
  Client,
  Events,
  GatewayIntentBits,
  type Message,
  Partials,
  PermissionFlagsBits,
} from "discord.js";
import type { Actor } from "../../core/commands/index.ts";
import type { Channel, ChannelRuntime } from "../channel.ts";
import { routeChatText } from "../chat-commands.ts";
import {
  answerAutocomplete,
  answerCommand,
  answerToolsClick,
  registerCommands,
} from "./commands.ts";
import { type DiscordMessageLike, normalizeDiscordMessage } from "./normalize.ts";
import { DiscordOutbound } from "./outbound.ts";

export interface DiscordChannelOptions {
  readonly token: string;
  /** The REST base, e.g. a proxy or a test's fake: `http://host/api`. */
  readonly apiUrl?: string;
  readonly session?: "thread" | "channel";
}

/** How long the bot remembers it is part of a thread. */
const THREAD_TTL_S = 30 * 24 * 3600;

/**
 * Discord through discord.js's gateway: direct messages, mentions, replies to
 * the bot and every message in a thread it is part of become messages on the
 * queue; `!tools`, `!skills` and `!skill` typed in chat are answered on the
 * spot. The message id is the event id, so a RESUME replay makes no second
 * turn.
 */
export class DiscordChannel implements Channel {
  readonly platform = "discord";
  readonly client: Client;
  readonly outbound: DiscordOutbound;

  constructor(private readonly options: DiscordChannelOptions) {
    this.client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      partials: [Partials.Channel],
      ...(options.apiUrl ? { rest: { api: options.apiUrl } } : {}),
    });
    this.outbound = new DiscordOutbound(this.client);
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
              interaction.customId.startsWith("tools:")
            ? answerToolsClick(interaction, runtime)
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
    await registerCommands(this.client);
  }

  async stop(): Promise<void> {
    await this.client.destroy();
  }

  async #take(runtime: ChannelRuntime, message: Message): Promise<void> {
    const botId = this.client.user?.id ?? "";
    if (message.author.id === botId || message.author.bot) return;
    if (!(await this.#forMe(runtime, message, botId))) return;
    const inbound = normalizeDiscordMessage(message as unknown as DiscordMessageLike, {
      botUserId: botId,
      session: this.options.session ?? "thread",
    });
    if (!inbound) return;
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
