import fc from "fast-check";
import type { Message, MessageEntity } from "grammy/types";
import { describe, expect, it } from "vitest";
import {
  isForBot,
  leadingCommand,
  normalizeTelegramMessage,
  type TelegramBotIdentity,
} from "../../src/platforms/telegram/normalize.ts";

const BOT: TelegramBotIdentity = { id: 42, username: "Switchyard_bot" };
const ALICE = { id: 7, is_bot: false, first_name: "Alice", last_name: "Liddell" } as const;
const GROUP = { id: -1009, type: "supergroup", title: "Team", is_forum: true } as const;
const OWN = (name: string) => ["tools", "skills", "skill", "start"].includes(name);

function message(overrides: Partial<Message> & { text?: string }): Message {
  return {
    message_id: 10,
    date: 1_700_000_000,
    chat: { id: 7, type: "private", first_name: "Alice" },
    from: ALICE,
    ...overrides,
  } as Message;
}

function inGroup(text: string, extra: Partial<Message> = {}): Message {
  return message({ chat: GROUP as Message["chat"], text, entities: detect(text), ...extra });
}

/** The entities Telegram would attach: mentions and commands. */
function detect(text: string): MessageEntity[] {
  return [...text.matchAll(/(^|\s)(@\w{5,32}|\/\w+(?:@\w+)?)/g)].map((m) => ({
    type: (m[2] as string).startsWith("@") ? "mention" : "bot_command",
    offset: (m.index ?? 0) + (m[1] as string).length,
    length: (m[2] as string).length,
  })) as MessageEntity[];
}

describe("isForBot", () => {
  it("takes every private message", () => {
    expect(isForBot(message({ text: "anything" }), BOT, OWN)).toBe(true);
  });

  it("in a group, takes mentions (any case), replies to the bot, and its own commands only", () => {
    expect(isForBot(inGroup("just talking"), BOT, OWN)).toBe(false);
    expect(isForBot(inGroup("hey @switchyard_BOT look"), BOT, OWN)).toBe(true);
    expect(isForBot(inGroup("hey @someone_else"), BOT, OWN)).toBe(false);
    expect(isForBot(inGroup("/tools"), BOT, OWN)).toBe(true);
    expect(isForBot(inGroup("/tools@switchyard_bot off x"), BOT, OWN)).toBe(true);
    expect(isForBot(inGroup("/tools@other_bot"), BOT, OWN)).toBe(false);
    expect(isForBot(inGroup("/ban someone"), BOT, OWN)).toBe(false);
    const mine = message({ message_id: 3, from: { id: 42, is_bot: true, first_name: "S" } });
    expect(isForBot(inGroup("and then?", { reply_to_message: mine as never }), BOT, OWN)).toBe(
      true,
    );
  });

  it("does not read a forum topic's opening message as a reply to the bot", () => {
    const opener = message({
      message_id: 3,
      from: { id: 42, is_bot: true, first_name: "S" },
      forum_topic_created: { name: "Bot topic", icon_color: 1 },
    } as Partial<Message>);
    const inTopic = inGroup("chatter", {
      message_thread_id: 3,
      is_topic_message: true,
      reply_to_message: opener as never,
    });
    expect(isForBot(inTopic, BOT, OWN)).toBe(false);
  });

  it("takes a mention of a user without a username when it names the bot", () => {
    const text = "Switchyard help";
    const entities = [
      {
        type: "text_mention",
        offset: 0,
        length: 10,
        user: { id: 42, is_bot: true, first_name: "S" },
      },
    ] as MessageEntity[];
    expect(isForBot(inGroup(text, { entities }), BOT, OWN)).toBe(true);
  });
});

describe("normalizeTelegramMessage", () => {
  it("makes a private message one conversation per chat, the message its event", () => {
    const inbound = normalizeTelegramMessage(message({ text: "hello" }), {
      bot: BOT,
      conversation: "topic",
    });
    expect(inbound).toEqual({
      platform: "telegram",
      workspace: "7",
      channel: "7",
      conversation: "7",
      user: "7",
      userName: "Alice Liddell",
      kind: "dm",
      text: "hello",
      attachments: [],
      eventId: "7:10",
      messageRef: "10",
      time: 1_700_000_000_000,
    });
  });

  it("makes a forum topic its own conversation, or part of the chat's when configured", () => {
    const inTopic = inGroup("@switchyard_bot plan?", {
      message_thread_id: 5,
      is_topic_message: true,
    });
    expect(normalizeTelegramMessage(inTopic, { bot: BOT, conversation: "topic" })).toMatchObject({
      workspace: "-1009",
      channel: "-1009",
      conversation: "-1009:5",
      thread: "5",
      text: "plan?",
    });
    expect(normalizeTelegramMessage(inTopic, { bot: BOT, conversation: "chat" })).toMatchObject({
      conversation: "-1009",
      thread: "5",
    });
    // A reply thread in a group that is no forum is not a topic.
    const reply = inGroup("@switchyard_bot hi", { message_thread_id: 9 });
    expect(normalizeTelegramMessage(reply, { bot: BOT, conversation: "topic" })).toMatchObject({
      conversation: "-1009",
    });
    expect(
      normalizeTelegramMessage(reply, { bot: BOT, conversation: "topic" })?.thread,
    ).toBeUndefined();
  });

  it("turns voice notes, photos and documents into attachments by file id", () => {
    const inbound = normalizeTelegramMessage(
      message({
        caption: "see these",
        voice: { file_id: "v1", file_unique_id: "uv", duration: 3, file_size: 900 },
        photo: [
          { file_id: "p-small", file_unique_id: "ps", width: 90, height: 90 },
          { file_id: "p-big", file_unique_id: "pb", width: 900, height: 900 },
        ],
        document: {
          file_id: "d1",
          file_unique_id: "ud",
          file_name: "plan.pdf",
          mime_type: "application/pdf",
        },
      } as Partial<Message>),
      { bot: BOT, conversation: "topic" },
    );
    expect(inbound?.text).toBe("see these");
    expect(inbound?.attachments).toEqual([
      { name: "voice-note.ogg", mimeType: "audio/ogg", size: 900, ref: "v1", voice: true },
      { name: "photo-pb.jpg", mimeType: "image/jpeg", ref: "p-big" },
      { name: "plan.pdf", mimeType: "application/pdf", ref: "d1" },
    ]);
  });

  it("has nothing to answer in a bare mention, a service message or a channel's automatic forward", () => {
    const options = { bot: BOT, conversation: "topic" } as const;
    expect(normalizeTelegramMessage(inGroup("@switchyard_bot"), options)).toBeUndefined();
    expect(
      normalizeTelegramMessage(message({ new_chat_members: [ALICE] } as Partial<Message>), options),
    ).toBeUndefined();
    expect(
      normalizeTelegramMessage(message({ text: "post", is_automatic_forward: true }), options),
    ).toBeUndefined();
  });

  it("speaks for an anonymous admin as the group", () => {
    const anonymous = inGroup("@switchyard_bot hi", {
      from: { id: 1087968824, is_bot: true, first_name: "Group", username: "GroupAnonymousBot" },
      sender_chat: GROUP as Message["chat"],
    });
    expect(normalizeTelegramMessage(anonymous, { bot: BOT, conversation: "topic" })).toMatchObject({
      user: "-1009",
      userName: "Team",
    });
  });

  it("names the event by chat and message only, so a redelivered update is the same event", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e13, max: 1e13 }).filter((n) => n !== 0),
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.string({ minLength: 1 }).filter((t) => t.trim() !== "" && !t.includes("@")),
        fc.option(fc.integer({ min: 1, max: 1e6 }), { nil: undefined }),
        (chat, id, text, topic) => {
          const chatInfo = {
            id: chat,
            type: chat > 0 ? "private" : "supergroup",
          } as Message["chat"];
          const m = message({
            chat: chatInfo,
            message_id: id,
            text,
            ...(topic ? { message_thread_id: topic, is_topic_message: true } : {}),
          });
          const once = normalizeTelegramMessage(m, { bot: BOT, conversation: "topic" });
          const again = normalizeTelegramMessage(structuredClone(m), {
            bot: BOT,
            conversation: "chat",
          });
          expect(once?.eventId).toBe(`${chat}:${id}`);
          expect(again?.eventId).toBe(once?.eventId);
          expect(once?.conversation).toBe(topic ? `${chat}:${topic}` : String(chat));
        },
      ),
    );
  });

  it("cuts the bot's mention out and keeps the rest as typed, wherever the mention stands", () => {
    const options = { bot: BOT, conversation: "topic" } as const;
    expect(normalizeTelegramMessage(inGroup("@switchyard_bot, sum it up"), options)?.text).toBe(
      "sum it up",
    );
    expect(
      normalizeTelegramMessage(inGroup("ask @someone_else and @switchyard_bot"), options)?.text,
    ).toBe("ask @someone_else and");
    const words = fc.array(fc.stringMatching(/^[a-z?!.,]{1,6}$/), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(words, words, (before, after) => {
        const text = `${before.join(" ")} @switchyard_bot ${after.join(" ")}`;
        const inbound = normalizeTelegramMessage(inGroup(text), {
          bot: BOT,
          conversation: "topic",
        });
        expect(inbound?.text).toBe(`${before.join(" ")} ${after.join(" ")}`);
      }),
    );
  });

  it("keeps what the queue can carry: a name cut to 256 characters, the time of a message without a date", () => {
    const options = { bot: BOT, conversation: "topic", now: () => 1_234_000 } as const;
    const long = message({ text: "hi", from: { ...ALICE, first_name: "A".repeat(300) } });
    expect(normalizeTelegramMessage(long, options)?.userName).toHaveLength(256);
    const undated = message({ text: "hi", date: undefined as unknown as number });
    expect(normalizeTelegramMessage(undated, options)?.time).toBe(1_234_000);
    expect(normalizeTelegramMessage(message({ text: "hi" }), options)?.time).toBe(
      1_700_000_000_000,
    );
  });

  it("has nothing to answer in a message without an id: no reply could name it, no redelivery match it", () => {
    const anonymous = message({ text: "hi", message_id: undefined as unknown as number });
    expect(
      normalizeTelegramMessage(anonymous, { bot: BOT, conversation: "topic" }),
    ).toBeUndefined();
  });

  it("never throws on a message of any shape", () => {
    const entity = fc.record({
      type: fc.constantFrom("mention", "bot_command", "text_mention", "bold"),
      offset: fc.integer({ min: -5, max: 50 }),
      length: fc.integer({ min: 0, max: 50 }),
      user: fc.constant({ id: 42, is_bot: true, first_name: "S" }),
    });
    const shape = fc.record(
      {
        text: fc.string(),
        caption: fc.string(),
        entities: fc.array(entity, { maxLength: 4 }),
        message_thread_id: fc.integer(),
        is_topic_message: fc.boolean(),
        sender_chat: fc.constant(GROUP),
        from: fc.constant(ALICE),
        chat: fc.constantFrom(GROUP, { id: 7, type: "private" }),
      },
      { requiredKeys: ["chat"] },
    );
    fc.assert(
      fc.property(shape, (extra) => {
        const m = message(extra as Partial<Message>);
        expect(() =>
          normalizeTelegramMessage(m, { bot: BOT, conversation: "topic" }),
        ).not.toThrow();
        expect(() => isForBot(m, BOT, OWN)).not.toThrow();
      }),
    );
  });
});

describe("leadingCommand", () => {
  it("reads the command, the bot it is addressed to, and the rest", () => {
    expect(leadingCommand("/tools@Switchyard_bot off x channel", [])).toEqual({
      name: "tools",
      target: "Switchyard_bot",
      rest: "off x channel",
    });
    expect(leadingCommand("/Meeting_Notes summarize", [])).toEqual({
      name: "meeting_notes",
      rest: "summarize",
    });
    expect(leadingCommand("no command /here", [])).toBeUndefined();
  });
});
