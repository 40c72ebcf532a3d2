import { describe, expect, it } from "vitest";
import {
  DISCORD_ROUTE_LIMITS,
  DiscordRouteLimiter,
} from "../../src/testing/fakes/discord-limits.ts";
import { SLACK_RATE_LIMITS, SlackRateLimiter } from "../../src/testing/fakes/slack-limits.ts";

describe("the fake Slack's rate limits", () => {
  it("lets chat.postMessage burst a little in a channel, then asks for a wait of whole seconds", () => {
    const slack = new SlackRateLimiter(SLACK_RATE_LIMITS);
    for (const at of [0, 1, 2])
      expect(slack.check("chat.postMessage", { channel: "C1" }, at)).toBe(0);
    expect(slack.check("chat.postMessage", { channel: "C1" }, 3)).toBe(1);
    expect(slack.check("chat.postMessage", { channel: "C2" }, 3)).toBe(0);
    expect(slack.check("chat.postMessage", { channel: "C1" }, 1_003)).toBe(0);
    expect(slack.buckets.early).toEqual([]);
  });

  it("holds chat.update to Tier 3, fifty a minute across the workspace, and records a call during the wait", () => {
    const slack = new SlackRateLimiter(SLACK_RATE_LIMITS);
    for (let i = 0; i < 50; i++)
      expect(slack.check("chat.update", { channel: `C${i}` }, i)).toBe(0);
    expect(slack.check("chat.update", { channel: "C1" }, 50)).toBe(2);
    expect(slack.check("chat.update", { channel: "C2" }, 1_000)).toBeGreaterThan(0);
    expect(slack.buckets.early).toHaveLength(1);
    // Calling early was told to wait again, two seconds from then.
    expect(slack.check("chat.update", { channel: "C3" }, 3_000)).toBe(0);
  });

  it("leaves a method with no tier listed alone", () => {
    const slack = new SlackRateLimiter(SLACK_RATE_LIMITS);
    for (let i = 0; i < 500; i++) expect(slack.check("chat.appendStream", {}, 0)).toBe(0);
  });
});

describe("the fake Discord's route buckets", () => {
  it("lets five messages a channel through in a window, with the headers discord.js paces by, then answers retry_after", () => {
    const discord = new DiscordRouteLimiter(DISCORD_ROUTE_LIMITS);
    const remaining = [0, 1, 2, 3, 4].map(
      (at) => discord.check("POST", "/channels/1/messages", at)?.headers["x-ratelimit-remaining"],
    );
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    const refused = discord.check("POST", "/channels/1/messages", 5);
    expect(refused?.retryAfter).toBeCloseTo(0.999, 2);
    expect(refused?.headers["retry-after"]).toBe("1");
    // Another channel, and editing in this one, are buckets of their own.
    expect(discord.check("POST", "/channels/2/messages", 5)?.retryAfter).toBeUndefined();
    expect(discord.check("PATCH", "/channels/1/messages/99", 5)?.retryAfter).toBeUndefined();
    expect(discord.check("POST", "/channels/1/messages", 1_100)?.retryAfter).toBeUndefined();
  });

  it("does not limit routes outside a channel's messages", () => {
    const discord = new DiscordRouteLimiter(DISCORD_ROUTE_LIMITS);
    expect(discord.check("GET", "/users/@me", 0)).toBeUndefined();
    expect(discord.check("POST", "/channels/1/typing", 0)).toBeUndefined();
  });
});
