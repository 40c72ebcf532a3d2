import { fillEnvTemplate } from "../../core/config/env-template.ts";
import type { SwitchyardConfig } from "../../core/config/index.ts";
import type { DiscordCommandScope, DiscordConfig } from "./config-section.ts";

/** What the channel is built from: its credentials, where its API is, and the config section it reads. */
export interface DiscordChannelOptions {
  readonly token: string;
  /** The REST base, e.g. a proxy or a test's fake: `http://host/api`. */
  readonly apiUrl?: string;
  /** The config's `discord:` section, read on every message so a reload applies at once; default: the bot's config. */
  readonly settings?: () => DiscordConfig;
  /** Where the commands are registered, over the config's `commands:` (DISCORD_COMMANDS). */
  readonly commands?: DiscordCommandScope;
  /** DISCORD_APPLICATION_ID: registers the commands for it instead of the one the client logs in as. */
  readonly applicationId?: string;
  /**
   * How long `/tools` or `/skills` may take before the person gets an error
   * instead of "thinking…" (default 20 s; Discord keeps the answer open 15 min).
   */
  readonly interactionDeadlineMs?: number;
  /**
   * The account's id, for a bot listed under `discord.accounts`: its
   * messages carry it on their address. Unset for the only (or default) bot.
   */
  readonly account?: string;
}

/** A Discord variable that cannot be used; `switchyard start` stops before connecting. */
export class DiscordEnvError extends Error {
  override readonly name = "DiscordEnvError";
}

const SNOWFLAKE = /^\d{17,20}$/;

/**
 * The Discord channel's options from the environment, or `undefined`
 * without `DISCORD_TOKEN`. `DISCORD_COMMANDS` wins over the config's
 * `discord.commands`; everything else of the config is read live, on every
 * message, through `settings`.
 *
 * @example
 * const options = discordOptionsFromEnv(process.env, () => liveConfig.current);
 * if (options) channels.push(new DiscordChannel(options));
 */
export function discordOptionsFromEnv(
  env: NodeJS.ProcessEnv,
  config: () => SwitchyardConfig,
): DiscordChannelOptions | undefined {
  const token = env.DISCORD_TOKEN;
  if (!token) return undefined;
  const commands = env.DISCORD_COMMANDS;
  if (commands && commands !== "guild" && commands !== "global") {
    throw new DiscordEnvError(
      `DISCORD_COMMANDS takes guild (in each server, the default) or global (once, for every server and DM), not "${commands}".`,
    );
  }
  const applicationId = env.DISCORD_APPLICATION_ID;
  if (applicationId && !SNOWFLAKE.test(applicationId)) {
    throw new DiscordEnvError(
      `DISCORD_APPLICATION_ID must be the bot's application id, 17 to 20 digits (Developer Portal, General Information, Application ID), not "${applicationId}".`,
    );
  }
  return {
    token,
    ...(env.DISCORD_API_URL ? { apiUrl: env.DISCORD_API_URL } : {}),
    ...(commands ? { commands: commands as DiscordCommandScope } : {}),
    ...(applicationId ? { applicationId } : {}),
    settings: () => config().discord,
  };
}

/**
 * The options of each bot under `discord.accounts`, its token filled from
 * the environment (`token: ${DISCORD_SUPPORT_TOKEN}`): one gateway
 * connection each, its commands registered for its own application.
 *
 * @example
 * const bots = discordAccountOptions(process.env, () => liveConfig.current);
 */
export function discordAccountOptions(
  env: NodeJS.ProcessEnv,
  config: () => SwitchyardConfig,
): DiscordChannelOptions[] {
  return (config().discord.accounts ?? []).map((account) => ({
    token: fillEnvTemplate(
      account.token,
      env,
      `the token of discord account ${JSON.stringify(account.id)}`,
    ),
    account: account.id,
    ...(env.DISCORD_API_URL ? { apiUrl: env.DISCORD_API_URL } : {}),
    settings: () => config().discord,
  }));
}
