import type { DiscordCommandScope } from "../../core/config/discord-section.ts";
import type { SwitchyardConfig } from "../../core/config/index.ts";
import type { DiscordChannelOptions } from "./channel.ts";

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
