import type { InlineKeyboardButton, Message } from "grammy/types";
import { describe, expect, it } from "vitest";
import { BASE_COMMANDS } from "../../src/platforms/telegram/menu.ts";
import { loadSkills } from "../../src/runtime/skill-folders.ts";
import type { StoredMessage } from "../../src/testing/fakes/telegram-api.ts";
import {
  ADA,
  ALICE,
  BOB,
  BOT,
  TEAM,
  type TelegramSetup,
  useTelegram,
} from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { tool } from "../support/tools.ts";

const { start } = useTelegram();

const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

/** The bot's messages in a chat whose text matches, once there is one. */
function botSays(s: TelegramSetup, chat: number, pattern: RegExp): Promise<StoredMessage> {
  return until(() => s.telegram.botMessages(chat).find((m) => pattern.test(m.text ?? "")));
}

function buttons(message: StoredMessage): InlineKeyboardButton.CallbackButton[] {
  return (
    message.reply_markup?.inline_keyboard ?? []
  ).flat() as InlineKeyboardButton.CallbackButton[];
}

function button(
  message: StoredMessage,
  text: string | RegExp,
): InlineKeyboardButton.CallbackButton {
  const found = buttons(message).find((b) =>
    typeof text === "string" ? b.text === text : text.test(b.text),
  );
  if (!found)
    throw new Error(`no button ${text} in ${JSON.stringify(buttons(message).map((b) => b.text))}`);
  return found;
}

/** The answerCallbackQuery that answered a press, once the bot sent it. */
function answerTo(s: TelegramSetup, queryId: string) {
  return until(() =>
    s.telegram
      .callsTo("answerCallbackQuery")
      .find((c) => c.params.callback_query_id === queryId && c.status === 200),
  );
}

describe("/tools in Telegram", () => {
  it("refuses /tools off in the channel scope from a non-admin; an admin's applies from the next turn", async () => {
    const s = await start();
    const { telegram, pipe } = s;
    telegram.userSends({ chat: TEAM, from: BOB, text: "/tools off lookup channel" });
    const refused = await botSays(s, TEAM, /Only workspace admins/);
    expect(refused.text).toContain(
      "Only workspace admins or the bot's configured admins can change the channel scope",
    );
    telegram.userSends({
      chat: TEAM,
      from: ADA,
      text: `/tools@${BOT.username} off lookup channel`,
    });
    await botSays(s, TEAM, /lookup is now off in this channel/);
    expect(pipe.fake.requests).toHaveLength(0);

    pipe.fake.script({ content: "done without it" });
    telegram.userSends({ chat: TEAM, from: BOB, text: `@${BOT.username} go` });
    await botSays(s, TEAM, /done without it/);
    const names = (pipe.fake.requests[0]?.body.tools ?? []).map(
      (t: { function: { name: string } }) => t.function.name,
    );
    expect(names).not.toContain("lookup");
    expect(telegram.callsTo("getChatMember").map((c) => Number(c.params.user_id))).toEqual([
      BOB.id,
      ADA.id,
    ]);
  });

  it("ignores a command addressed to another bot in a group", async () => {
    const s = await start();
    s.telegram.userSends({ chat: TEAM, from: ADA, text: "/tools@some_other_bot" });
    s.telegram.userSends({ chat: TEAM, from: ADA, text: "/tools" });
    await botSays(s, TEAM, /tools available/);
    await settle();
    expect(s.telegram.botMessages(TEAM)).toHaveLength(1);
  });

  it("lists tools with buttons; a press switches the tool, answers the press and edits the list in place", async () => {
    const s = await start();
    const { telegram, pipe } = s;
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "/tools" });
    const list = await botSays(s, ALICE.id, /2 of 2 tools available/);
    expect(buttons(list).map((b) => b.text)).toEqual([
      "● conversation",
      "channel",
      "workspace",
      "Turn off lookup",
      "Turn off calendar_create",
    ]);
    const press = telegram.pressButton({
      from: ALICE,
      message: list as Message,
      data: button(list, "Turn off lookup").callback_data,
    });
    const answer = await answerTo(s, press.callback_query?.id as string);
    expect(answer.params.text).toMatch(/^lookup is now off in this conversation/);
    expect(answer.params.show_alert).toBe(false);
    const edited = await until(() =>
      telegram.botMessages(ALICE.id).find((m) => m.message_id === list.message_id && m.edits),
    );
    expect(edited.text).toMatch(/1 of 2 tools available/);
    expect(buttons(edited).map((b) => b.text)).toContain("Turn on lookup");
    const { intent } = await pipe.app.store.intent.read({
      platform: "telegram",
      workspace: String(ALICE.id),
      channel: String(ALICE.id),
      conversation: String(ALICE.id),
    });
    expect(intent.decisions).toEqual({ lookup: false });
  });

  it("picks the scope with a button, and refuses a non-admin's switch there with an alert", async () => {
    const s = await start();
    const { telegram, pipe } = s;
    telegram.userSends({ chat: TEAM, from: BOB, text: "/tools" });
    const list = await botSays(s, TEAM, /tools available/);
    const view = telegram.pressButton({
      from: BOB,
      message: list as Message,
      data: button(list, "channel").callback_data,
    });
    await answerTo(s, view.callback_query?.id as string);
    const atChannel = await until(() =>
      telegram
        .botMessages(TEAM)
        .find((m) => m.message_id === list.message_id && m.text?.includes("for the channel scope")),
    );
    expect(buttons(atChannel)[1]?.text).toBe("● channel");
    const press = telegram.pressButton({
      from: BOB,
      message: atChannel as Message,
      data: button(atChannel, "Turn off lookup").callback_data,
    });
    const answer = await answerTo(s, press.callback_query?.id as string);
    expect(answer.params.show_alert).toBe(true);
    expect(answer.params.text).toMatch(/^Only workspace admins/);
    const layers = await pipe.app.store.scopes.readStack({
      platform: "telegram",
      workspace: String(TEAM),
      channel: String(TEAM),
      conversation: String(TEAM),
    });
    expect(layers.channel).toEqual({});
  });

  it("pages a long list, and its buttons stay within 64 bytes for tool ids of any length", async () => {
    const ids = Array.from({ length: 11 }, (_, i) =>
      `${String(i).padStart(2, "0")}_${"very_long_tool_identifier_".repeat(3)}`.slice(0, 64),
    );
    const s = await start({ tools: ids.map((id) => tool(id)) });
    const { telegram, pipe } = s;
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "/tools" });
    const list = await botSays(s, ALICE.id, /11 of 11 tools available/);
    for (const b of buttons(list))
      expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(64);
    const next = telegram.pressButton({
      from: ALICE,
      message: list as Message,
      data: button(list, "Next ›").callback_data,
    });
    await answerTo(s, next.callback_query?.id as string);
    const page2 = await until(() =>
      telegram
        .botMessages(ALICE.id)
        .find((m) => m.message_id === list.message_id && m.text?.includes("Page 2 of 2")),
    );
    const last = ids[10] as string;
    const press = telegram.pressButton({
      from: ALICE,
      message: page2 as Message,
      data: button(page2, `Turn off ${last}`).callback_data,
    });
    await answerTo(s, press.callback_query?.id as string);
    const { intent } = await pipe.app.store.intent.read({
      platform: "telegram",
      workspace: String(ALICE.id),
      channel: String(ALICE.id),
      conversation: String(ALICE.id),
    });
    expect(intent.decisions).toEqual({ [last]: false });
  });
});

describe("/skills and the command menu in Telegram", () => {
  it("sets the menu with each skill; /skills off takes one off the chat's menu and refuses its command", async () => {
    const skills = await loadSkills({ global: [], workspaces: {} });
    const s = await start({ skills });
    const { telegram, pipe } = s;
    const menu = (scope?: { type: string; chat_id?: number }) =>
      telegram.commandsFor(scope).map((c) => c.command);
    await until(() => (menu().length > 0 ? true : undefined));
    expect(menu()).toEqual([...BASE_COMMANDS.map((c) => c.command), "bot_guide", "meeting_notes"]);
    expect(BASE_COMMANDS.map((c) => c.command)).toEqual([
      "help",
      "new",
      "stop",
      "usage",
      "model",
      "queue",
      "agent",
      "approve",
      "deny",
      "tools",
      "skills",
      "skill",
      "schedule",
    ]);

    pipe.fake.script({ content: "Decisions: none." });
    telegram.userSends({
      chat: ALICE.id,
      from: ALICE,
      text: "/meeting_notes we talked for an hour",
    });
    await botSays(s, ALICE.id, /Decisions: none/);
    expect(pipe.fake.requests[0]?.body.messages.at(-1).content).toContain("we talked for an hour");
    expect(pipe.fake.requests[0]?.body.messages.at(-1).content).toContain("meeting-notes");

    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "/skills off meeting-notes" });
    await botSays(s, ALICE.id, /meeting-notes is now off/);
    await until(() => (menu({ type: "chat", chat_id: ALICE.id }).length > 0 ? true : undefined));
    expect(menu({ type: "chat", chat_id: ALICE.id })).toEqual([
      ...BASE_COMMANDS.map((c) => c.command),
      "bot_guide",
    ]);
    expect(menu()).toContain("meeting_notes");

    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "/meeting_notes again" });
    await botSays(s, ALICE.id, /meeting-notes is disabled/);
    await settle();
    expect(pipe.fake.requests).toHaveLength(1);
  });

  it("lists skills with buttons that switch them for the channel", async () => {
    const skills = await loadSkills({ global: [], workspaces: {} });
    const s = await start({ skills });
    const { telegram } = s;
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "/skills" });
    const list = await botSays(s, ALICE.id, /2 of 2 skills available/);
    const press = telegram.pressButton({
      from: ALICE,
      message: list as Message,
      data: button(list, "Turn off bot-guide").callback_data,
    });
    await answerTo(s, press.callback_query?.id as string);
    const edited = await until(() =>
      telegram
        .botMessages(ALICE.id)
        .find((m) => m.message_id === list.message_id && m.text?.includes("1 of 2 skills")),
    );
    expect(buttons(edited).map((b) => b.text)).toContain("Turn on bot-guide");
    await until(() =>
      telegram.commandsFor({ type: "chat", chat_id: ALICE.id }).length > 0 ? true : undefined,
    );
    expect(
      telegram.commandsFor({ type: "chat", chat_id: ALICE.id }).map((c) => c.command),
    ).not.toContain("bot_guide");
  });

  it("answers /start with what the bot does, without the model", async () => {
    const s = await start();
    s.telegram.userSends({ chat: ALICE.id, from: ALICE, text: "/start" });
    const hello = await botSays(s, ALICE.id, /^Hi, I'm Switchyard/);
    expect(hello.text).toContain("/tools");
    expect(s.pipe.fake.requests).toHaveLength(0);
  });
});
