import { type Client, Events, type Guild, Routes } from "discord.js";
import type { Redis } from "ioredis";
import type { LoggerPort } from "../../core/logger.ts";
import type { KeyScheme } from "../../store/keys.ts";
import { commandDefinitions } from "./commands.ts";
import type { DiscordCommandScope } from "./config-section.ts";

/** Discord refused to register the commands; the message says what to check. */
export class DiscordRegistrationError extends Error {
  override readonly name = "DiscordRegistrationError";
}

export interface RegistrationOptions {
  readonly scope: DiscordCommandScope;
  /** DISCORD_APPLICATION_ID when set, else the application the client logged in as. */
  readonly applicationId: string;
  /** Remembers where the commands were registered, so switching scopes removes the old copies. */
  readonly redis: Redis;
  readonly keys: KeyScheme;
  readonly logger: LoggerPort;
}

/**
 * Registers `/tools` and `/skills` by bulk overwrite (PUT), so repeating it
 * at every start changes nothing. `guild` puts them in every guild the bot
 * is in (they appear at once); `global` once for every guild and DM.
 *
 * The other scope's copies, if an earlier start made them, are overwritten
 * with nothing, or each command would show twice; Redis remembers where
 * they are, so a bot in many guilds does not clear each one at every start.
 *
 * One guild refusing (an old invite without the applications.commands
 * scope) is a warning; every guild refusing, or the global registration
 * failing, is a {@link DiscordRegistrationError}: the id or token is wrong.
 */
export async function registerCommands(
  client: Client,
  options: RegistrationOptions,
): Promise<void> {
  const keys = registrationKeys(options);
  if (options.scope === "global") {
    await overwrite(client, options, undefined, commandDefinitions());
    await options.redis.set(keys.global, "1");
    for (const guild of await options.redis.smembers(keys.guilds)) {
      await clearGuild(client, options, guild);
    }
    return;
  }
  const guilds = [...client.guilds.cache.keys()];
  const results = await Promise.allSettled(
    guilds.map((guild) => registerInGuild(client, options, guild)),
  );
  const failures = results.flatMap((r) => (r.status === "rejected" ? [r.reason as Error] : []));
  if (failures.length > 0 && failures.length === guilds.length) throw failures[0];
  for (const failure of failures) {
    options.logger.warn(failure.message, { applicationId: options.applicationId });
  }
  if ((await options.redis.exists(keys.global)) === 1) {
    await overwrite(client, options, undefined, []);
    await options.redis.del(keys.global);
  }
}

/** Guild scope: the commands in one guild, e.g. one the bot just joined. */
export async function registerInGuild(
  client: Client,
  options: RegistrationOptions,
  guild: string,
): Promise<void> {
  await overwrite(client, options, guild, commandDefinitions());
  await options.redis.sadd(registrationKeys(options).guilds, guild);
}

/**
 * Guild scope, for a guild that was unavailable and is back: registers only
 * where no earlier start did, so a Discord outage ending for many guilds at
 * once does not re-register in each.
 */
export async function registerInGuildOnce(
  client: Client,
  options: RegistrationOptions,
  guild: string,
): Promise<void> {
  if ((await options.redis.sismember(registrationKeys(options).guilds, guild)) === 1) return;
  await registerInGuild(client, options, guild);
}

/**
 * Removes a guild's copies after a switch to global. A guild the bot has
 * left refuses (its copies went with the bot) and is forgotten; any other
 * failure is tried again at the next start.
 */
async function clearGuild(
  client: Client,
  options: RegistrationOptions,
  guild: string,
): Promise<void> {
  const key = registrationKeys(options).guilds;
  try {
    await overwrite(client, options, guild, []);
  } catch (error) {
    const status = ((error as DiscordRegistrationError).cause as { status?: number } | undefined)
      ?.status;
    if (status !== 403 && status !== 404) {
      options.logger.warn(
        `${(error as Error).message} The guild's own copies of the commands stay until the next start.`,
        { guild },
      );
      return;
    }
  }
  await options.redis.srem(key, guild);
}

function registrationKeys(options: RegistrationOptions) {
  return options.keys.commandRegistration("discord", options.applicationId);
}

async function overwrite(
  client: Client,
  options: RegistrationOptions,
  guild: string | undefined,
  body: unknown[],
): Promise<void> {
  const app = options.applicationId;
  const route =
    guild === undefined
      ? Routes.applicationCommands(app)
      : Routes.applicationGuildCommands(app, guild);
  try {
    await client.rest.put(route, { body });
  } catch (error) {
    const where = guild === undefined ? "globally" : `in guild ${guild}`;
    throw new DiscordRegistrationError(
      `Discord refused to register /tools and /skills ${where} for application ${app}: ${(error as Error)?.message}. Check that DISCORD_APPLICATION_ID, if set, is this bot's application id, and that the bot was invited with the applications.commands scope.`,
      { cause: error },
    );
  }
}

/**
 * {@link registerCommands}, and with the `guild` scope, in each guild the
 * bot joins later too; a guild joined while it is unavailable (an outage)
 * is registered when it becomes available.
 */
export async function registerCommandsFollowingGuilds(
  client: Client,
  registration: RegistrationOptions,
): Promise<void> {
  await registerCommands(client, registration);
  if (registration.scope !== "guild") return;
  const register = (guild: Guild, once: boolean) =>
    (once ? registerInGuildOnce : registerInGuild)(client, registration, guild.id).catch(
      (error: unknown) =>
        registration.logger.warn("the commands could not be registered in a new guild", {
          guild: guild.id,
          error: (error as Error)?.message,
        }),
    );
  client.on(Events.GuildCreate, (guild) => {
    if (guild.available) void register(guild, false);
  });
  client.on(Events.GuildAvailable, (guild) => void register(guild, true));
}
