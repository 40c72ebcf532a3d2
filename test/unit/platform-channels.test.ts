import { describe, expect, it } from "vitest";
import { platformChannels, StartOptionError } from "../../src/cli/platforms.ts";
import type { Channel } from "../../src/ingress/channel.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import type { EnvPlatform } from "../../src/platforms/env-platforms.ts";
import { SlackSettingsError } from "../../src/platforms/slack/settings.ts";

const config = () => EMPTY_CONFIG;
const TELEGRAM_TOKEN = "123456:AAH-platform-channels-test_token";

/** What a logger writes when a line carries `text`. */
function logged(text: string): string {
  const lines: string[] = [];
  const logger = createLogger({
    level: "info",
    destination: { write: (l: string) => void lines.push(l) },
  });
  logger.info(text);
  return lines.join("");
}

describe("the channels switchyard start runs from the environment", () => {
  it("is one channel per platform whose credentials are set, in order, with their tokens kept out of logs", () => {
    const channels = platformChannels(
      { DISCORD_TOKEN: "discord-platform-channels-token", TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN },
      0,
      config,
    );
    expect(channels.map((c) => c.platform)).toEqual(["discord", "telegram"]);
    expect(logged(`token ${TELEGRAM_TOKEN} and discord-platform-channels-token`)).not.toMatch(
      /AAH-platform|discord-platform-channels-token/,
    );
  });

  it("is none with no credentials, so the console runs", () => {
    expect(platformChannels({}, 0, config)).toEqual([]);
  });

  it("refuses a Slack bot token without a way to receive events, naming both", () => {
    const start = () => platformChannels({ SLACK_BOT_TOKEN: "xoxb-1" }, 0, config);
    expect(start).toThrow(SlackSettingsError);
    expect(start).toThrow(/neither SLACK_SIGNING_SECRET .* nor SLACK_APP_TOKEN/);
  });

  it("refuses two platforms listening on the one HTTP port, saying how to run each without it", () => {
    const env = {
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_SIGNING_SECRET: "s",
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram",
      TELEGRAM_WEBHOOK_SECRET: "webhook-secret-1",
    };
    expect(() => platformChannels(env, 3000, config)).toThrow(StartOptionError);
    expect(() => platformChannels(env, 3000, config)).toThrow(
      "Slack's Events API and Telegram's webhook would both listen on SWITCHYARD_HTTP_PORT. Run Slack in Socket Mode (SLACK_APP_TOKEN), run Telegram by long polling (unset TELEGRAM_WEBHOOK_URL), or run them in separate processes.",
    );
    // Socket Mode needs no port: the two run together.
    const socket = platformChannels({ ...env, SLACK_APP_TOKEN: "xapp-1" }, 3000, config);
    expect(socket.map((c) => c.platform)).toEqual(["slack", "telegram"]);
  });

  it("takes a platform from the list it is given, as a fourth platform would join it", () => {
    const channel = { platform: "matrix" } as Channel;
    const matrix: EnvPlatform = {
      platform: "matrix",
      fromEnv: (env) => (env.MATRIX_TOKEN ? { channel, secrets: [env.MATRIX_TOKEN] } : undefined),
    };
    expect(platformChannels({ MATRIX_TOKEN: "matrix-token-7f3e" }, 0, config, [matrix])).toEqual([
      channel,
    ]);
    expect(platformChannels({}, 0, config, [matrix])).toEqual([]);
  });
});
