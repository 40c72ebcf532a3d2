import {
  type APIApplication,
  type APIUser,
  ApplicationFlags,
  DiscordAPIError,
  REST,
  Routes,
} from "discord.js";
import { discordOptionsFromEnv } from "../../platforms/discord/settings.ts";
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
  const { env, config, timeoutMs } = context;
  let token: string;
  let apiUrl: string | undefined;
  try {
    const options = discordOptionsFromEnv(env, () => config);
    if (!options) return [];
    token = options.token;
    apiUrl = options.apiUrl;
  } catch (error) {
    return [problem("discord", reasonOf(error), "fix the variable it names")];
  }
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
            "discord",
            "Discord refuses the bot token (401 Unauthorized)",
            "copy the token from the Developer Portal (your application -> Bot -> Reset Token) into DISCORD_TOKEN",
          )
        : problem(
            "discord",
            `/users/@me failed: ${reasonOf(error)}`,
            apiUrl ? "check DISCORD_API_URL" : "check that this machine reaches discord.com",
          ),
    ];
  }
  const findings = [ok("discord", `bot ${me.username} (${me.id})`)];
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
        "discord",
        `/applications/@me failed: ${reasonOf(error)}`,
        "run doctor again; if it persists, check DISCORD_API_URL",
      ),
    );
    return findings;
  }
  const flags = application.flags ?? 0;
  findings.push(
    (flags & MESSAGE_CONTENT) !== 0
      ? ok("discord", "the Message Content intent is on")
      : problem(
          "discord",
          "the Message Content intent is off, so the gateway refuses the bot (close code 4014)",
          "switch on Developer Portal -> your application -> Bot -> Message Content Intent",
        ),
  );
  return findings;
}
