import fc from "fast-check";
import { GrammyError } from "grammy";
import { describe, expect, it } from "vitest";
import type { Schedule } from "../../src/core/schedules/index.ts";
import { discordGone } from "../../src/platforms/discord/gone.ts";
import { slackGone } from "../../src/platforms/slack/gone.ts";
import { telegramGone } from "../../src/platforms/telegram/gone.ts";
import { TargetGoneError, targetGoneOf } from "../../src/ports/target-gone.ts";
import { goneReason, schedulesInto } from "../../src/queue/schedule-pause.ts";

/** What @slack/web-api throws for `{ ok: false, error }`: the code in `data.error`. */
const slack = (error: string) =>
  Object.assign(new Error(`An API error occurred: ${error}`), { data: { ok: false, error } });
/** What @discordjs/rest throws: the JSON error code in `code`. */
const discord = (code: number, status = 404) =>
  Object.assign(new Error("Discord refused"), { code, status });
const telegram = (code: number, description: string) =>
  new GrammyError(
    `Call to 'sendMessage' failed! (${code}: ${description})`,
    { ok: false, error_code: code, description },
    "sendMessage",
    {},
  );

describe("what a platform says is a gone conversation", () => {
  it.each([
    ["Slack, a deleted channel", slackGone(slack("channel_not_found"), "C1"), "channel_not_found"],
    ["Slack, the bot removed", slackGone(slack("not_in_channel"), "C1"), "not_in_channel"],
    ["Slack, an archived channel", slackGone(slack("is_archived"), "C1"), "is_archived"],
    ["Discord, a deleted channel", discordGone(discord(10003), "1"), "Unknown Channel (10003)"],
    ["Discord, no access", discordGone(discord(50001, 403), "1"), "Missing Access (50001)"],
    [
      "Telegram, the bot kicked",
      telegramGone(telegram(403, "Forbidden: bot was kicked from the group chat"), "-1"),
      "Forbidden: bot was kicked from the group chat",
    ],
    [
      "Telegram, the bot blocked",
      telegramGone(telegram(403, "Forbidden: bot was blocked by the user"), "5"),
      "Forbidden: bot was blocked by the user",
    ],
    [
      "Telegram, a chat it does not know",
      telegramGone(telegram(400, "Bad Request: chat not found"), "-1"),
      "Bad Request: chat not found",
    ],
  ])("%s", (_, error, reason) => {
    expect(error).toBeInstanceOf(TargetGoneError);
    expect((error as TargetGoneError).reason).toBe(reason);
  });

  it("leaves every other Slack error as it was", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z_]{1,30}$/), (code) => {
        fc.pre(!["channel_not_found", "not_in_channel", "is_archived"].includes(code));
        const error = slack(code);
        expect(slackGone(error, "C1")).toBe(error);
      }),
    );
  });

  it("leaves every other Discord error as it was", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), (code) => {
        fc.pre(![10003, 10004, 50001].includes(code));
        const error = discord(code);
        expect(discordGone(error, "1")).toBe(error);
      }),
    );
  });

  it("leaves a Telegram rate limit, a server error and a bad request as they were", () => {
    for (const error of [
      telegram(429, "Too Many Requests: retry after 3"),
      telegram(500, "Internal Server Error"),
      telegram(400, "Bad Request: message is too long"),
      new Error("socket hang up"),
    ]) {
      expect(telegramGone(error, "-1")).toBe(error);
    }
  });

  it("is found inside the errors that wrap it", () => {
    const gone = new TargetGoneError("Slack", "C1", "is_archived");
    expect(targetGoneOf(new Error("delivery failed", { cause: gone }))).toBe(gone);
    expect(targetGoneOf(new Error("no"))).toBeUndefined();
    expect(goneReason(gone)).toBe("the bot can no longer post in its target (Slack: is_archived).");
  });
});

const schedule = (id: string, channel: string, thread?: string): Schedule => ({
  id,
  target: {
    platform: "discord",
    workspace: "G1",
    channel,
    conversation: thread ?? channel,
    ...(thread ? { thread } : {}),
    kind: "group",
  },
  prompt: "Say tick.",
  timing: { kind: "every", everyMs: 60_000 },
  owner: { user: "U1" },
  catchUp: "one",
  origin: "config",
});

describe("the schedules a gone conversation pauses", () => {
  const all = [
    schedule("in-channel", "C1"),
    schedule("in-thread", "C1", "T1"),
    schedule("elsewhere", "C2"),
    schedule("ran", "C3"),
  ];

  it("are the ones speaking into that channel, or that thread, and the one whose run it refused", () => {
    expect(schedulesInto(all, { platform: "discord", channel: "C1" }, []).map((s) => s.id)).toEqual(
      ["in-channel", "in-thread"],
    );
    expect(
      schedulesInto(all, { platform: "discord", channel: "T1" }, ["ran"]).map((s) => s.id),
    ).toEqual(["in-thread", "ran"]);
    expect(schedulesInto(all, { platform: "slack", channel: "C1" }, [])).toEqual([]);
  });
});
