import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SLACK_COMMANDS } from "../../src/channels/slack/commands.ts";
import { SLACK_SHARED_COMMANDS } from "../../src/channels/slack/shared-commands.ts";

const manifest = parse(
  readFileSync(fileURLToPath(new URL("../../deploy/slack/manifest.yaml", import.meta.url)), "utf8"),
);

describe("the Slack app manifest in deploy/", () => {
  it("subscribes to every event and command the Slack channel handles, with the scopes they need", () => {
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(["app_mention", "message.channels", "message.im"]),
    );
    // Every command the channel registers is in the manifest, and nothing else.
    expect(manifest.features.slash_commands.map((c: { command: string }) => c.command)).toEqual([
      ...SLACK_COMMANDS,
      ...SLACK_SHARED_COMMANDS,
    ]);
    expect(SLACK_SHARED_COMMANDS).toEqual(["/help", "/new", "/stop", "/usage", "/model", "/queue"]);
    expect(manifest.oauth_config.scopes.bot).toEqual(
      expect.arrayContaining([
        "app_mentions:read",
        "chat:write",
        "commands",
        "users:read",
        "im:history",
      ]),
    );
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    for (const url of [
      manifest.settings.event_subscriptions.request_url,
      manifest.settings.interactivity.request_url,
      ...manifest.features.slash_commands.map((c: { url: string }) => c.url),
    ]) {
      expect(new URL(url).pathname).toBe("/slack/events");
    }
  });
});
