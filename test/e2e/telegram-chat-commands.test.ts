import { describe, it } from "vitest";
import { telegramAddress } from "../../src/platforms/telegram/normalize.ts";
import { ALICE, BOB, BOT, startTelegram, TEAM } from "../fakes/telegram-setup.ts";
import {
  budgetRefusesTheNextMessage,
  type CommandDriver,
  configOf,
  type DriverOptions,
  helpListsWhatThePersonMayUse,
  modelSwitchesTheRequest,
  newForgetsHistory,
  type Persona,
  queueShowsAndSets,
  skillOverTheLimitIsTooLong,
  stopEndsARunningTurn,
  usageMatchesTheModel,
} from "../support/command-scenarios.ts";
import { bigTool, lookupTool } from "../support/pipeline.ts";
import { scheduleAddFromChat } from "../support/schedule-scenarios.ts";

/**
 * The Telegram bot on the fake Bot API: the member is Bob in the team group
 * (where the bot answers mentions and its commands), the admin is Alice in
 * her private chat (everyone administers their own).
 */
async function startBot(options: DriverOptions): Promise<CommandDriver> {
  const tools = options.tools ?? [lookupTool, bigTool];
  const config = configOf(options.config, `telegram:${ALICE.id}`);
  const s = await startTelegram({
    tools,
    config,
    ...(options.skills ? { skills: options.skills } : {}),
    ...(options.stopTurn ? { stopTurn: options.stopTurn } : {}),
  });
  const { pipe } = s;
  const chatOf = (who: Persona) => (who === "admin" ? ALICE.id : TEAM);
  return {
    pipe,
    address: (who) => telegramAddress(chatOf(who), undefined, "topic"),
    say: async (text, who = "member") => {
      const group = who === "member";
      const typed = group && !text.startsWith("/") ? `@${BOT.username} ${text}` : text;
      s.telegram.userSends({ chat: chatOf(who), from: group ? BOB : ALICE, text: typed });
    },
    said: (who = "member") => s.telegram.botMessages(chatOf(who)).map((m) => m.text ?? ""),
    async close() {
      await s.channel.stop();
      await pipe.close();
      await s.telegram.close();
    },
  };
}

describe("chat commands in Telegram", () => {
  it("/new makes the next model request carry no earlier messages", () =>
    newForgetsHistory(startBot));
  it("/reset does the same", () => newForgetsHistory(startBot, `/reset@${BOT.username}`));
  it("/usage shows the tokens the model reported, the cached share and the cost", () =>
    usageMatchesTheModel(startBot));
  it("/model switches the next request's model for an admin and refuses a name not in the list", () =>
    modelSwitchesTheRequest(startBot));
  it("refuses a message once the workspace's daily token budget is spent, saying when it resets", () =>
    budgetRefusesTheNextMessage(startBot));
  it(
    "/stop from another process stops a turn running a 20 s tool, and the group goes on",
    () => stopEndsARunningTurn(startBot),
    40_000,
  );
  it("/help lists only what the person may use, and /start shows the same", async () => {
    await helpListsWhatThePersonMayUse(startBot);
    await helpListsWhatThePersonMayUse(startBot, "/start");
  });
  it("/queue shows the mode and where it comes from; an admin sets it", () =>
    queueShowsAndSets(startBot));
  it("answers a /skill whose instructions carry the request over the limit as too long, as every platform does", () =>
    skillOverTheLimitIsTooLong(startBot));
});

describe("/schedule in Telegram", () => {
  it("refuses a member a schedule in the group and the workspace's list; makes, lists and removes an admin's in a private chat", () =>
    scheduleAddFromChat(startBot, { refusedTarget: "" }));
});
