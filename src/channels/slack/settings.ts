import type { SlackConfig } from "../../core/config/index.ts";

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
