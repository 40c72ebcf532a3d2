import type { SwitchyardConfig } from "../../core/config/index.ts";
import type { SlackConfig } from "./config-section.ts";

/** What the channel is built from: its credentials, where its API is, and the config section it reads. */
export interface SlackChannelOptions {
  readonly botToken: string;
  /** Events API over HTTP: requests are verified with it. */
  readonly signingSecret?: string;
  /** Socket Mode instead of HTTP when set. */
  readonly appToken?: string;
  /** The Web API base (GovSlack, a proxy, or a test's fake), ending in `/api/`. */
  readonly apiUrl?: string;
  /** Where the Events API receiver listens (`SWITCHYARD_HTTP_PORT`); events at /slack/events. */
  readonly port?: number;
  readonly host?: string;
  /** The bot's ids; when both are given the app skips `auth.test` at start. */
  readonly botId?: string;
  readonly botUserId?: string;
  readonly teamId?: string;
  /** The config's `slack:` section, read on every event so a reload applies at once; default: the bot's config. */
  readonly settings?: () => SlackConfig;
  /** WebClient retries (rate limits are always waited out); tests use 0. */
  readonly retries?: number;
}

/** A Slack setting in the environment that cannot work; the message names it and the fix. */
export class SlackSettingsError extends Error {
  override readonly name = "SlackSettingsError";
}

/**
 * The Slack channel `SLACK_BOT_TOKEN` asks for, with Socket Mode
 * (`SLACK_APP_TOKEN`) or the Events API (`SLACK_SIGNING_SECRET`, on `port`);
 * undefined without a bot token.
 */
export function slackOptionsFromEnv(
  env: NodeJS.ProcessEnv,
  config: () => SwitchyardConfig,
  port: number,
): SlackChannelOptions | undefined {
  if (!env.SLACK_BOT_TOKEN) return undefined;
  if (!env.SLACK_SIGNING_SECRET && !env.SLACK_APP_TOKEN) {
    throw new SlackSettingsError(
      "SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (Events API over HTTP) nor SLACK_APP_TOKEN (Socket Mode) is. Set one of them.",
    );
  }
  return {
    botToken: env.SLACK_BOT_TOKEN,
    ...(env.SLACK_SIGNING_SECRET ? { signingSecret: env.SLACK_SIGNING_SECRET } : {}),
    ...(env.SLACK_APP_TOKEN ? { appToken: env.SLACK_APP_TOKEN } : {}),
    ...(env.SLACK_API_URL ? { apiUrl: env.SLACK_API_URL } : {}),
    port,
    settings: () => config().slack,
  };
}
