import { fillEnvTemplate } from "../../core/config/env-template.ts";
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
  /**
   * The account's id, for an app listed under `slack.accounts`: its
   * messages carry it on their address. Unset for the only (or default) app.
   */
  readonly account?: string;
  /** The app's id (`A0123…`): the Events API requests whose `api_app_id` names it are this app's. */
  readonly appId?: string;
  /**
   * Shared by the apps of one bot that take the Events API over HTTP: they
   * listen on one port, and each request goes to the app it names.
   */
  readonly listener?: SlackListenerSlot;
}

/** Where the apps of `slack.accounts` share one HTTP listener; the first app to start fills it. */
export class SlackListenerSlot {
  value: unknown;
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

/**
 * The options of each app under `slack.accounts`, its credentials filled
 * from the environment (`bot_token: ${SLACK_ENG_BOT_TOKEN}`). Apps that
 * take the Events API share `port` (and the default app's endpoint, when it
 * takes them too): each request goes to the app its `api_app_id` names.
 *
 * @example
 * const apps = slackAccountOptions(process.env, () => liveConfig.current, 3000);
 */
export function slackAccountOptions(
  env: NodeJS.ProcessEnv,
  config: () => SwitchyardConfig,
  port: number,
): SlackChannelOptions[] {
  return (config().slack.accounts ?? []).map((account) => {
    const fill = (value: string, what: string) =>
      fillEnvTemplate(value, env, `the ${what} of slack account ${JSON.stringify(account.id)}`);
    const appToken = account.appToken ? fill(account.appToken, "app token") : undefined;
    const signingSecret = account.signingSecret
      ? fill(account.signingSecret, "signing secret")
      : undefined;
    return {
      botToken: fill(account.botToken, "bot token"),
      account: account.id,
      ...(account.appId ? { appId: account.appId } : {}),
      ...(signingSecret ? { signingSecret } : {}),
      ...(appToken ? { appToken } : {}),
      ...(env.SLACK_API_URL ? { apiUrl: env.SLACK_API_URL } : {}),
      port,
      settings: () => config().slack,
    };
  });
}

/** The apps that take the Events API over HTTP, on one shared listener when there are several. */
export function shareSlackListener(apps: readonly SlackChannelOptions[]): SlackChannelOptions[] {
  const overHttp = apps.filter((app) => !app.appToken);
  if (overHttp.length < 2) return [...apps];
  const listener = new SlackListenerSlot();
  return apps.map((app) => (app.appToken ? app : { ...app, listener }));
}
