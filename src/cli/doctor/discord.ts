import {
  type APIApplication,
  type APIUser,
  ApplicationFlags,
  DiscordAPIError,
  REST,
  Routes,
} from "discord.js";
import {
  type DiscordChannelOptions,
  discordAccountOptions,
  discordOptionsFromEnv,
} from "../../platforms/discord/settings.ts";
import { type DoctorContext, type Finding, ok, problem, reasonOf, within } from "./finding.ts";

/** Either flag means the portal's Message Content intent is on (the second for unverified bots). */
const MESSAGE_CONTENT =
  ApplicationFlags.GatewayMessageContent | ApplicationFlags.GatewayMessageContentLimited;

/**
 * The bot token is accepted (`GET /users/@me`), and the application has the
 * Message Content intent on (`GET /applications/@me`, its flags): the
 * gateway refuses a bot that asks for an intent the portal has off.
 */
export async function checkDiscord(context: DoctorContext): Promise<Finding[]> {
  const { env, config } = context;
  const bots: Promise<Finding[]>[] = [];
  try {
    const options = discordOptionsFromEnv(env, () => config);
    if (options) bots.push(checkBot(context, "discord", "DISCORD_TOKEN", options));
  } catch (error) {
    bots.push(Promise.resolve([problem("discord", reasonOf(error), "fix the variable it names")]));
  }
  // Each bot of `discord.accounts` is checked as the default one is.
  for (const account of config.discord.accounts ?? []) {
    const check = `discord@${account.id}`;
    try {
      const alone = { ...config, discord: { ...config.discord, accounts: [account] } };
      const [options] = discordAccountOptions(env, () => alone);
      if (!options) continue;
      const source = `the variable in discord.accounts ${account.id}'s token`;
      bots.push(checkBot(context, check, source, options));
    } catch (error) {
      bots.push(Promise.resolve([problem(check, reasonOf(error), "set the variable it names")]));
    }
  }
  return (await Promise.all(bots)).flat();
}

/** One bot: its token is accepted, and its application has the Message Content intent on. */
async function checkBot(
  context: DoctorContext,
  check: string,
  source: string,
  options: DiscordChannelOptions,
): Promise<Finding[]> {
  const { timeoutMs } = context;
  const { token, apiUrl } = options;
  const rest = new REST({
    retries: 0,
    timeout: timeoutMs,
    ...(apiUrl ? { api: apiUrl } : {}),
  }).setToken(token);
  let me: APIUser;
  try {
    me = (await within(timeoutMs, "Discord's /users/@me", rest.get(Routes.user()))) as APIUser;
  } catch (error) {
    return [
      error instanceof DiscordAPIError && error.status === 401
        ? problem(
            check,
            "Discord refuses the bot token (401 Unauthorized)",
            `copy the token from the Developer Portal (your application -> Bot -> Reset Token) into ${source}`,
          )
        : problem(
            check,
            `/users/@me failed: ${reasonOf(error)}`,
            apiUrl ? "check DISCORD_API_URL" : "check that this machine reaches discord.com",
          ),
    ];
  }
  const findings = [ok(check, `bot ${me.username} (${me.id})`)];
  let application: APIApplication;
  try {
    application = (await within(
      timeoutMs,
      "Discord's /applications/@me",
      rest.get(Routes.currentApplication()),
    )) as APIApplication;
  } catch (error) {
    findings.push(
      problem(
        check,
        `/applications/@me failed: ${reasonOf(error)}`,
        "run doctor again; if it persists, check DISCORD_API_URL",
      ),
    );
    return findings;
  }
  const flags = application.flags ?? 0;
  findings.push(
    (flags & MESSAGE_CONTENT) !== 0
      ? ok(check, "the Message Content intent is on")
      : problem(
          check,
          "the Message Content intent is off, so the gateway refuses the bot (close code 4014)",
          "switch on Developer Portal -> your application -> Bot -> Message Content Intent",
        ),
  );
  return findings;
}
