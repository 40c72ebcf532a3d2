import type { SwitchyardConfig } from "../core/config/index.ts";
import type { Channel } from "../ingress/channel.ts";
import { accountChannels } from "./account-channels.ts";
import { discordPlatformSection } from "./discord/config-section.ts";
import { discordAccountOptions, discordOptionsFromEnv } from "./discord/settings.ts";
import { DISCORD_TRAITS } from "./discord/traits.ts";
import { discordChannel, slackChannel, telegramChannel } from "./factories.ts";
import type { PlatformTraits } from "./platform-traits.ts";
import { slackPlatformSection } from "./slack/config-section.ts";
import { shareSlackListener, slackAccountOptions, slackOptionsFromEnv } from "./slack/settings.ts";
import { SLACK_TRAITS } from "./slack/traits.ts";
import { telegramPlatformSection } from "./telegram/config-section.ts";
import { telegramAccountOptions, telegramOptionsFromEnv } from "./telegram/settings.ts";
import { TELEGRAM_TRAITS } from "./telegram/traits.ts";

/** What every platform reads its environment with: the shared HTTP port and the live config. */
export interface EnvParts {
  /** `SWITCHYARD_HTTP_PORT`: where platforms that receive events over HTTP listen. */
  readonly httpPort: number;
  readonly config: () => SwitchyardConfig;
}

/** A channel its environment asked for. */
export interface EnvChannel {
  readonly channel: Channel;
  /** Credentials to keep out of every log line. */
  readonly secrets: readonly (string | undefined)[];
  /**
   * Set when the channel listens on the shared HTTP port: what listens
   * ("Slack's Events API") and how to run it without the port ("run Slack in
   * Socket Mode (SLACK_APP_TOKEN)"), for the error when two would.
   */
  readonly listens?: { readonly what: string; readonly instead: string };
}

/**
 * A platform `switchyard start` runs when its credentials are in the
 * environment. A configuration half set (a token without its secret, a bad
 * mode) throws an error that names the variable and the fix.
 */
export interface EnvPlatform {
  readonly platform: string;
  readonly fromEnv: (env: NodeJS.ProcessEnv, parts: EnvParts) => EnvChannel | undefined;
}

const slack: EnvPlatform = {
  platform: slackPlatformSection.name,
  fromEnv: (env, { httpPort, config }) => {
    const main = slackOptionsFromEnv(env, config, httpPort);
    const all = shareSlackListener([
      ...(main ? [main] : []),
      ...slackAccountOptions(env, config, httpPort),
    ]);
    if (all.length === 0) return undefined;
    const channel = channelOfAccounts(SLACK_TRAITS, all, slackChannel);
    const secrets = all.flatMap((o) => [o.botToken, o.signingSecret, o.appToken]);
    // Socket Mode needs no port; the Events API listens on it.
    if (all.every((options) => options.appToken)) return { channel, secrets };
    const listens = {
      what: "Slack's Events API",
      instead: "run Slack in Socket Mode (SLACK_APP_TOKEN)",
    };
    return { channel, secrets, listens };
  },
};

const discord: EnvPlatform = {
  platform: discordPlatformSection.name,
  fromEnv: (env, { config }) => {
    const main = discordOptionsFromEnv(env, config);
    const all = [...(main ? [main] : []), ...discordAccountOptions(env, config)];
    if (all.length === 0) return undefined;
    const channel = channelOfAccounts(DISCORD_TRAITS, all, discordChannel);
    return { channel, secrets: all.map((options) => options.token) };
  },
};

const telegram: EnvPlatform = {
  platform: telegramPlatformSection.name,
  fromEnv: (env, { httpPort, config }) => {
    const main = telegramOptionsFromEnv(env, config, httpPort);
    const accounts = telegramAccountOptions(env, config, httpPort);
    const all = [...(main ? [main] : []), ...accounts];
    if (all.length === 0) return undefined;
    const found = {
      channel: channelOfAccounts(TELEGRAM_TRAITS, all, telegramChannel),
      secrets: all.flatMap((options) => [options.token, options.webhookSecret]),
    };
    // Long polling needs no port; a webhook listens on it.
    if (!all.some((options) => options.webhookUrl)) return found;
    const instead = "run Telegram by long polling (unset TELEGRAM_WEBHOOK_URL)";
    return { ...found, listens: { what: "Telegram's webhook", instead } };
  },
};

/** One channel for a platform's accounts: each one's options built into its channel, known by its `account`. */
function channelOfAccounts<O extends { readonly account?: string | undefined }>(
  traits: PlatformTraits,
  all: readonly O[],
  build: (options: O) => Channel,
): Channel {
  return accountChannels(
    traits,
    all.map((options) => ({
      ...(options.account ? { id: options.account } : {}),
      channel: build(options),
    })),
  );
}

/** The variables that turn a platform on, as errors and `switchyard doctor` name them. */
export const PLATFORM_VARIABLES =
  "SLACK_BOT_TOKEN (with SLACK_APP_TOKEN for Socket Mode, or SLACK_SIGNING_SECRET for the Events API), DISCORD_TOKEN or TELEGRAM_BOT_TOKEN";

/** The platforms `switchyard start` knows, in the order their channels start. */
export const ENV_PLATFORMS: readonly EnvPlatform[] = [slack, discord, telegram];
