import { type Api, Bot, BotError } from "grammy";
import type { Update } from "grammy/types";
import type { Redis } from "ioredis";
import type { SwitchyardConfig } from "../../core/config/index.ts";
import type { LoggerPort } from "../../core/logger.ts";
import {
  type Channel,
  type ChannelRuntime,
  type WorkerParts,
  withDirectory,
} from "../../ingress/channel.ts";
import { ChatAdmins } from "./admins.ts";
import {
  describeTelegramError,
  installTelegramTransformers,
  isTelegramError,
  telegramClientOptions,
} from "./api.ts";
import { DEFAULT_TELEGRAM, type TelegramConfig } from "./config-section.ts";
import { TelegramDirectory } from "./directory.ts";
import { floodGateOf, shareSendPace } from "./flood-gate.ts";
import { isMessageForBot, type TelegramIngressDeps, telegramIngress } from "./ingress.ts";
import { CommandMenu } from "./menu.ts";
import type { TelegramBotIdentity } from "./normalize.ts";
import { TelegramOutbound } from "./outbound.ts";
import { UpdatePoller } from "./polling.ts";
import { SentLedger } from "./sent-ledger.ts";
import type { TelegramChannelOptions } from "./settings.ts";
import { resolveTelegramMode, type TelegramMode, TelegramSettingsError } from "./settings.ts";
import { tellSkipped } from "./skipped-update.ts";
import { isTransientUpdateFailure } from "./update-failure.ts";
import { takeUpdatesOnce, UpdateLedger } from "./update-ledger.ts";
import { UpdateOffset } from "./update-offset.ts";
import { serveTelegramWebhook, type TelegramWebhook } from "./webhook.ts";

export type { TelegramChannelOptions } from "./settings.ts";

const ALLOWED_UPDATES = ["message", "callback_query"] as const;

/**
 * Telegram through grammY: private messages, and in groups mentions,
 * replies to the bot and its commands, become messages on the queue; forum
 * topics are conversations of their own. `/tools` and `/skills` answer with
 * buttons that switch tools and skills in place; the command menu follows
 * each chat's skills. Updates arrive by long polling (the default; the
 * offset is kept in Redis, so a restart loses and replays nothing) or by
 * webhook; either way each update id is taken once. An update that fails
 * because Redis or the queue is away is tried again until it is taken; one
 * that fails for any other reason is skipped after one clear reply, logged
 * and counted ({@link skippedUpdates}).
 *
 * A worker process builds the channel for its outbound only: the token is
 * all it needs, see {@link useOutboundOnly}.
 */
export class TelegramChannel implements Channel {
  #config: (() => SwitchyardConfig) | undefined;
  readonly platform = "telegram";
  readonly outbound: TelegramOutbound;
  readonly directory = new TelegramDirectory(() => this.api);
  #bot: Bot | undefined;
  #poller: UpdatePoller | undefined;
  #webhook: TelegramWebhook | undefined;
  #skipped = 0;

  constructor(private readonly options: TelegramChannelOptions) {
    this.outbound = new TelegramOutbound(
      () => this.api,
      options.token,
      undefined,
      () => this.options.apiRoot ?? this.#settings().apiRoot,
      () => this.#settings().streaming ?? "native",
    );
    floodGateOf(options.token).payFor(() => this.#settings().paidBroadcast === true);
  }

  /** The Bot API client, every transformer installed. */
  get api(): Api {
    return this.#client().api;
  }

  /** Updates skipped since the process started: they failed for a reason other than Redis or the queue being away. */
  get skippedUpdates(): number {
    return this.#skipped;
  }

  /** The port the webhook listens on, once started in webhook mode. */
  get webhookPort(): number | undefined {
    return this.#webhook?.port;
  }

  /**
   * For a worker process: posts through the Bot API, remembering its posts
   * in Redis, without taking updates. Its new messages keep the bot's pace
   * together with every other process of the bot, through Redis.
   */
  useOutboundOnly(redis: Redis, prefix: string, logger?: LoggerPort): void {
    this.outbound.attach(new SentLedger(redis, prefix), logger);
    shareSendPace(this.options.token, redis, prefix, logger);
  }

  prepareWorker({ redis, prefix, logger }: WorkerParts): void {
    this.useOutboundOnly(redis, prefix, logger);
  }

  async start(given: ChannelRuntime): Promise<void> {
    // `/schedule add ... in #channel` finds the channel through this channel's directory.
    const runtime = withDirectory(given, this.directory);
    this.#config = runtime.sources.config;
    const prefix = runtime.sources.store.keys.prefix;
    this.useOutboundOnly(runtime.redis, prefix, runtime.logger);
    const mode = resolveTelegramMode(this.options, this.#settings());
    const bot = this.#client();
    await bot.init().catch((error: unknown) => {
      if (!isTelegramError(error, 401)) throw error;
      throw new TelegramSettingsError(
        `Telegram refused ${this.options.account ? `the token of telegram account ${JSON.stringify(this.options.account)}` : "TELEGRAM_BOT_TOKEN"} (401 Unauthorized). Copy the token again from @BotFather (/mybots, API Token).`,
      );
    });
    const identity: TelegramBotIdentity = { id: bot.botInfo.id, username: bot.botInfo.username };
    const state = runtime.sources.store.keys.channelState("telegram", String(identity.id));
    const menu = new CommandMenu(() => this.api, runtime.sources);
    const ingress: TelegramIngressDeps = {
      runtime,
      menu,
      botName: bot.botInfo.first_name,
      api: () => this.api,
      bot: identity,
      ...(this.options.account ? { account: this.options.account } : {}),
      admins: new ChatAdmins(() => this.api),
      settings: () => this.#settings(),
      describe: (error) => this.#describe(error),
    };
    const skip = (update: Update, error: unknown) => this.#skip(update, error, ingress);
    bot.use(
      takeUpdatesOnce(new UpdateLedger(runtime.redis, state), {
        isTransient: isTransientUpdateFailure,
        skip: (ctx, error) => skip(ctx.update, error),
        logger: runtime.logger,
        describe: (error) => this.#describe(error),
      }),
      telegramIngress(ingress),
    );
    // The menu is set beside the start, not before it: taking messages does not wait on
    // setMyCommands (a round trip to Telegram, longer while it asks the bot to wait).
    menu.refresh().catch((error: unknown) =>
      runtime.logger.warn("the Telegram command menu could not be set", {
        error: this.#describe(error),
      }),
    );
    if (mode.kind === "webhook") await this.#serveWebhook(bot, mode, runtime, skip);
    else {
      const offset = new UpdateOffset(runtime.redis, state.offset);
      await this.#startPolling(bot, offset, runtime, skip);
    }
  }

  async stop(): Promise<void> {
    await this.#poller?.stop();
    await this.#webhook?.close();
    this.#poller = undefined;
    this.#webhook = undefined;
    // A later start builds a fresh bot: its middleware is registered once per start.
    this.#bot = undefined;
  }

  /** Mounts the webhook route, then tells Telegram where to post, with the secret. */
  async #serveWebhook(
    bot: Bot,
    mode: Extract<TelegramMode, { kind: "webhook" }>,
    runtime: ChannelRuntime,
    skip: (update: Update, error: unknown) => Promise<void>,
  ): Promise<void> {
    this.#webhook = await serveTelegramWebhook({
      take: (update) => takeUpdate(bot, update),
      isTransient: isTransientUpdateFailure,
      skip,
      path: new URL(mode.url).pathname,
      secret: mode.secret,
      ...(runtime.http ? { http: runtime.http } : {}),
      ...(this.options.port !== undefined ? { port: this.options.port } : {}),
      ...(this.options.host !== undefined ? { host: this.options.host } : {}),
      logger: runtime.logger,
      describe: (error) => this.#describe(unwrap(error)),
    });
    await bot.api.setWebhook(mode.url, {
      secret_token: mode.secret,
      allowed_updates: [...ALLOWED_UPDATES],
    });
  }

  async #startPolling(
    bot: Bot,
    offset: UpdateOffset,
    runtime: ChannelRuntime,
    skip: (update: Update, error: unknown) => Promise<void>,
  ): Promise<void> {
    // Telegram refuses getUpdates while a webhook is set; keep the updates it holds.
    await bot.api.deleteWebhook({ drop_pending_updates: false });
    const { pollTimeoutSeconds, retryMs, maxRetryMs } = this.options;
    this.#poller = new UpdatePoller({
      api: bot.api,
      offset,
      take: (update) => takeUpdate(bot, update),
      isTransient: isTransientUpdateFailure,
      skip,
      allowedUpdates: ALLOWED_UPDATES,
      ...(pollTimeoutSeconds !== undefined ? { timeoutSeconds: pollTimeoutSeconds } : {}),
      ...(retryMs !== undefined ? { retryMs } : {}),
      ...(maxRetryMs !== undefined ? { maxRetryMs } : {}),
      logger: runtime.logger,
      describe: (error) => this.#describe(error),
    });
    this.#poller.start();
  }

  /**
   * An update that failed for a reason trying again would not fix: the
   * person hears of it once where there is someone to tell, it is logged
   * and counted, and taking goes on.
   */
  async #skip(update: Update, error: unknown, ingress: TelegramIngressDeps): Promise<void> {
    this.#skipped++;
    const notice = await tellSkipped(this.api, update, (message) =>
      isMessageForBot(message, ingress),
    );
    ingress.runtime.logger.warn(
      `Telegram update ${update.update_id} could not be handled; it is skipped, not tried again`,
      {
        kind: updateKind(update),
        told: notice,
        error: this.#describe(unwrap(error)),
        skipped: this.#skipped,
      },
    );
  }

  #client(): Bot {
    if (this.#bot) return this.#bot;
    const root = this.options.apiRoot ?? this.#settings().apiRoot;
    const bot = new Bot(this.options.token, {
      client: telegramClientOptions(root),
    });
    installTelegramTransformers(bot.api.config, this.options.token);
    this.#bot = bot;
    return bot;
  }

  #settings(): TelegramConfig {
    // Without settings of its own, the channel reads the bot's config (createBot's `config`).
    return this.options.settings?.() ?? this.#config?.().telegram ?? DEFAULT_TELEGRAM;
  }

  #describe(error: unknown): string {
    return describeTelegramError(error, this.options.token);
  }
}

/** Runs the bot's middleware on one update, throwing the middleware's own error. */
async function takeUpdate(bot: Bot, update: Update): Promise<void> {
  try {
    await bot.handleUpdate(update);
  } catch (error) {
    throw unwrap(error);
  }
}

/** What an update carries (`message`, `callback_query`, ...), for a log line. */
function updateKind(update: Update): string {
  return Object.keys(update as object).find((key) => key !== "update_id") ?? "nothing";
}

/** grammY wraps a middleware's error in a BotError; the cause is what matters. */
function unwrap(error: unknown): unknown {
  return error instanceof BotError ? error.error : error;
}
