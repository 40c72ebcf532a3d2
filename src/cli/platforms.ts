import type { Channel } from "../channels/channel.ts";
import { DiscordChannel } from "../channels/discord/channel.ts";
import { discordOptionsFromEnv } from "../channels/discord/env.ts";
import { SlackChannel } from "../channels/slack/channel.ts";
import { TelegramChannel } from "../channels/telegram/channel.ts";
import { telegramOptionsFromEnv } from "../channels/telegram/env.ts";
import type { Provider } from "../core/agent/provider.ts";
import {
  checkModelLimit,
  DEFAULT_MODEL_LIMITS,
  MODEL_LIMIT_NAMES,
  MODEL_LIMIT_RULES,
  type ModelLimits,
  type ModelsConfig,
  type SwitchyardConfig,
} from "../core/config/index.ts";
import { type loggerPort, registerSecret } from "../observability/logger.ts";
import { routeByModel } from "../providers/model-router.ts";
import { createOpenAIProvider } from "../providers/openai.ts";
import { unconfiguredProvider } from "../providers/unconfigured.ts";

/**
 * What `switchyard start` reads from the environment: which platforms run,
 * the model, ports and numbers. Every mistake is a {@link StartOptionError}
 * naming the variable, raised before anything starts.
 */

export class StartOptionError extends Error {
  override readonly name = "StartOptionError";
}

/**
 * The platform channels whose credentials are set. With none, the process
 * runs the console channel instead.
 */
export function platformChannels(
  env: NodeJS.ProcessEnv,
  httpPort: number,
  config: () => SwitchyardConfig,
): Channel[] {
  const channels: Channel[] = [];
  if (env.SLACK_BOT_TOKEN) {
    if (!env.SLACK_SIGNING_SECRET && !env.SLACK_APP_TOKEN) {
      throw new StartOptionError(
        "SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (Events API over HTTP) nor SLACK_APP_TOKEN (Socket Mode) is. Set one of them.",
      );
    }
    registerSecret(env.SLACK_BOT_TOKEN);
    channels.push(
      new SlackChannel({
        botToken: env.SLACK_BOT_TOKEN,
        ...(env.SLACK_SIGNING_SECRET ? { signingSecret: env.SLACK_SIGNING_SECRET } : {}),
        ...(env.SLACK_APP_TOKEN ? { appToken: env.SLACK_APP_TOKEN } : {}),
        ...(env.SLACK_API_URL ? { apiUrl: env.SLACK_API_URL } : {}),
        port: httpPort,
        settings: () => config().slack,
      }),
    );
  }
  const discord = discordOptionsFromEnv(env, config);
  if (discord) {
    registerSecret(discord.token);
    channels.push(new DiscordChannel(discord));
  }
  const telegram = telegramOptionsFromEnv(env, config, httpPort);
  if (telegram) {
    if (
      telegram.webhookUrl &&
      env.SLACK_BOT_TOKEN &&
      env.SLACK_SIGNING_SECRET &&
      !env.SLACK_APP_TOKEN
    ) {
      throw new StartOptionError(
        "Slack's Events API and Telegram's webhook would both listen on SWITCHYARD_HTTP_PORT. Run Slack in Socket Mode (SLACK_APP_TOKEN), run Telegram by long polling (unset TELEGRAM_WEBHOOK_URL), or run them in separate processes.",
      );
    }
    registerSecret(telegram.token);
    registerSecret(telegram.webhookSecret);
    channels.push(new TelegramChannel(telegram));
  }
  return channels;
}

/**
 * The model from the environment. Its timeouts and caps are the config
 * file's `model:` section (read on every call, so a reload applies), with any
 * `SWITCHYARD_MODEL_*` variable winning over its key. With `models`, a
 * request for a listed model with a `base_url` goes to that server, with the
 * key from its `api_key_env` (default `OPENAI_API_KEY`).
 */
export function providerFromEnv(
  env: NodeJS.ProcessEnv,
  logger: ReturnType<typeof loggerPort>,
  configured: () => ModelLimits = () => DEFAULT_MODEL_LIMITS,
  models?: () => ModelsConfig,
): Provider {
  // Checked even without a model: a typo must fail now, not once a key is added.
  const overrides = modelLimitsFromEnv(env);
  const limits = () => ({ ...configured(), ...overrides });
  const own =
    !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL
      ? unconfiguredProvider()
      : createOpenAIProvider({
          ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
          ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
          model: env.SWITCHYARD_MODEL ?? "gpt-4.1-mini",
          limits,
          logger,
        });
  if (!models) return own;
  return routeByModel(own, models, (entry) => {
    const apiKey = env[entry.apiKeyEnv ?? "OPENAI_API_KEY"];
    if (apiKey) registerSecret(apiKey);
    return createOpenAIProvider({
      ...(apiKey ? { apiKey } : {}),
      baseURL: entry.baseURL,
      model: entry.name,
      limits,
      logger,
    });
  });
}

/** The `SWITCHYARD_MODEL_*` timeouts and caps that are set; a bad one is a {@link StartOptionError}. */
export function modelLimitsFromEnv(env: NodeJS.ProcessEnv): Partial<ModelLimits> {
  const limits: Partial<Record<keyof ModelLimits, number>> = {};
  for (const name of MODEL_LIMIT_NAMES) {
    const { env: variable, key } = MODEL_LIMIT_RULES[name];
    const raw = env[variable]?.trim();
    if (!raw) continue;
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    const problem = checkModelLimit(name, value);
    if (problem) {
      throw new StartOptionError(
        `${variable} ${problem}, not "${raw}". Fix it, or unset it to use model.${key} from the config file (default ${DEFAULT_MODEL_LIMITS[name]}).`,
      );
    }
    limits[name] = value;
  }
  return limits;
}

export function portFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new StartOptionError(`${name} must be a port number (0 turns it off), not "${raw}".`);
  }
  return port;
}

export function numberFromEnv<K extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  key: K,
): Partial<Record<K, number>> {
  const raw = env[name];
  if (raw === undefined || raw === "") return {};
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new StartOptionError(`${name} must be a positive number, not "${raw}".`);
  }
  return { [key]: value } as Partial<Record<K, number>>;
}
