import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const manifest = parse(
  readFileSync(fileURLToPath(new URL("../../deploy/slack/manifest.yaml", import.meta.url)), "utf8"),
);

describe("the Slack app manifest in deploy/", () => {
  it("subscribes to every event and command the Slack channel handles, with the scopes they need", () => {
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(["app_mention", "message.channels", "message.im"]),
    );
    expect(manifest.features.slash_commands.map((c: { command: string }) => c.command)).toEqual([
      "/tools",
      "/skills",
    ]);
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
