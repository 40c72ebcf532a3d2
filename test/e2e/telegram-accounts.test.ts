/**
 * Two Telegram bots in one deployment (`telegram.accounts`): each answers
 * its own chats through its own token, Alice's chat with one is not her
 * chat with the other, and a replayed update, a worker killed mid-turn and
 * an ingress killed and started again leave one answer per message on each.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Update } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import {
  FAKE_TELEGRAM,
  type FakeTelegram,
  type FakeTelegramBot,
  type StoredMessage,
  startFakeTelegram,
} from "../../src/testing/fakes/telegram-api.ts";
import { ALICE, BOB } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { redisEnv, uniquePrefix } from "../support/redis.ts";
import { type SwitchyardProcess, startSwitchyardProcess } from "../support/switchyard-process.ts";
import { type CrashWorkers, startCrashWorkers } from "../support/worker-crash.ts";

const SALES = {
  token: "7000000002:AAFakeSalesTokenForSwitchyardTests_q1W",
  bot: { ...FAKE_TELEGRAM.bot, id: 7000000002, first_name: "Sales", username: "sales_bot" },
};

/** The config both roles read: DMs open, and the sales bot beside the one of TELEGRAM_BOT_TOKEN. */
function writeConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-accounts-"));
  const file = join(dir, "switchyard.yaml");
  writeFileSync(
    file,
    [
      "access:",
      "  dm: open",
      "agents:",
      "  - id: support",
      "    persona: You are the sales desk of Acme.",
      "telegram:",
      "  accounts:",
      "    - id: sales",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
      "      token: ${TELEGRAM_SALES_TOKEN}",
      "      agent: support",
      "",
    ].join("\n"),
  );
  return file;
}

/** Echoes, except that the first request for a message saying "slow" never finishes in time. */
function slowOnce(): { responder: (r: RecordedRequest) => unknown; slow: () => number } {
  let slow = 0;
  const responder = (request: RecordedRequest) => {
    const messages: { role?: string; content?: unknown }[] = request.body?.messages ?? [];
    const text = String(messages.findLast((m) => m.role === "user")?.content ?? "");
    if (text.includes("slow") && ++slow === 1) return { content: "too late", delayMs: 60_000 };
    return { content: `echo: ${text}` };
  };
  return { responder, slow: () => slow };
}

/** The bot's replies to one message of a person. */
function repliesTo(messages: StoredMessage[], update: Update): StoredMessage[] {
  return messages.filter((m) => m.reply_to_message?.message_id === update.message?.message_id);
}

let running: {
  telegram?: FakeTelegram;
  model?: FakeOpenAI;
  ingress?: SwitchyardProcess;
  crash?: CrashWorkers;
} = {};
afterEach(async () => {
  const { telegram, model, ingress, crash } = running;
  running = {};
  await ingress?.stop();
  await crash?.close();
  await telegram?.close();
  await model?.close();
});

describe("two Telegram bot accounts in one deployment", () => {
  it("answers each bot's chats through that bot, once per message through a replay, a killed worker and a restarted ingress", async () => {
    const telegram = await startFakeTelegram({ bots: [SALES] });
    const sales: FakeTelegramBot = telegram.account(SALES.token);
    const model = slowOnce();
    const openai = await startFakeOpenAI({ responder: model.responder as never });
    running = { telegram, model: openai };
    telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
    sales.addChat({ id: ALICE.id, type: "private", title: "Alice" });
    sales.addChat({ id: BOB.id, type: "private", title: "Bob" });

    const prefix = uniquePrefix("accounts");
    const env = {
      SWITCHYARD_CONFIG: writeConfig(),
      TELEGRAM_BOT_TOKEN: FAKE_TELEGRAM.token,
      TELEGRAM_SALES_TOKEN: SALES.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
    };
    const crash = await startCrashWorkers(openai, prefix, env);
    running.crash = crash;
    const ingressEnv = { ...redisEnv(), ...crash.env };
    running.ingress = await startSwitchyardProcess("ingress", ingressEnv);

    // Alice writes to both bots (one chat id, two conversations); Bob to the sales bot only.
    const toMain = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello main" });
    const toSales = sales.userSends({ chat: ALICE.id, from: ALICE, text: "hello sales" });
    const bobToSales = sales.userSends({ chat: BOB.id, from: BOB, text: "hi from bob" });
    await until(() => repliesTo(telegram.botMessages(ALICE.id), toMain)[0], 30_000);
    await until(() => repliesTo(sales.botMessages(ALICE.id), toSales)[0], 30_000);
    await until(() => repliesTo(sales.botMessages(BOB.id), bobToSales)[0], 30_000);
    expect(repliesTo(telegram.botMessages(ALICE.id), toMain).map((m) => m.text)).toEqual([
      "echo: hello main",
    ]);
    expect(repliesTo(sales.botMessages(ALICE.id), toSales).map((m) => m.text)).toEqual([
      "echo: hello sales",
    ]);
    expect(repliesTo(sales.botMessages(BOB.id), bobToSales).map((m) => m.text)).toEqual([
      "echo: hi from bob",
    ]);
    // Each answer went out with its own bot's token; the main bot never wrote to Bob.
    expect(telegram.botMessages(BOB.id)).toEqual([]);
    expect(sales.callsTo("sendMessage").every((c) => c.bot === SALES.bot.id)).toBe(true);
    expect(sales.callsTo("getUpdates").length).toBeGreaterThan(0);
    // Each conversation is its own: the sales bot's history holds nothing said to the main bot.
    const salesPrompts = openai.requests
      .filter((r) => JSON.stringify(r.body.messages).includes("hello sales"))
      .map((r) => JSON.stringify(r.body.messages));
    expect(salesPrompts.some((p) => p.includes("hello main"))).toBe(false);
    // The sales bot answers as the agent its account names; the main bot as the default one.
    const systemOf = (said: string) =>
      openai.requests
        .filter((r) => JSON.stringify(r.body.messages).includes(said))
        .map((r) => String(r.body.messages[0]?.content));
    expect(systemOf("hello sales")[0]).toMatch(/^You are the sales desk of Acme\./);
    expect(systemOf("hello main")[0]).not.toMatch(/sales desk/);

    // Telegram delivers the sales update again: no second answer (the next message's answer comes after it).
    sales.redeliver(toSales);
    telegram.redeliver(toMain);
    const next = sales.userSends({ chat: ALICE.id, from: ALICE, text: "after the replay" });
    const nextMain = telegram.userSends({ chat: ALICE.id, from: ALICE, text: "main after" });
    await until(() => repliesTo(sales.botMessages(ALICE.id), next)[0], 30_000);
    await until(() => repliesTo(telegram.botMessages(ALICE.id), nextMain)[0], 30_000);
    expect(repliesTo(sales.botMessages(ALICE.id), toSales)).toHaveLength(1);
    expect(repliesTo(telegram.botMessages(ALICE.id), toMain)).toHaveLength(1);

    // A worker dies (kill -9) in the middle of a turn of the sales bot: the other one answers, once.
    const slow = sales.userSends({ chat: ALICE.id, from: ALICE, text: "slow please" });
    await until(() => (model.slow() >= 1 ? true : undefined), 30_000);
    const salesAlice: ConversationAddress = {
      platform: "telegram",
      account: "sales",
      workspace: String(ALICE.id),
      channel: String(ALICE.id),
      conversation: String(ALICE.id),
    };
    await crash.killLeaseHolder(salesAlice);
    await until(() => repliesTo(sales.botMessages(ALICE.id), slow)[0], 30_000);
    expect(repliesTo(sales.botMessages(ALICE.id), slow).map((m) => m.text)).toEqual([
      "echo: slow please",
    ]);

    // The ingress dies (kill -9) and starts again: each bot's poll offset is its own, nothing is taken twice.
    await running.ingress.stop("SIGKILL");
    running.ingress = await startSwitchyardProcess("ingress", ingressEnv);
    const late = sales.userSends({ chat: BOB.id, from: BOB, text: "bob after restart" });
    const lateMain = telegram.userSends({
      chat: ALICE.id,
      from: ALICE,
      text: "main after restart",
    });
    await until(() => repliesTo(sales.botMessages(BOB.id), late)[0], 30_000);
    await until(() => repliesTo(telegram.botMessages(ALICE.id), lateMain)[0], 30_000);

    // One answer per message, on each bot.
    for (const [bot, chat, updates] of [
      [sales, ALICE.id, [toSales, next, slow]],
      [sales, BOB.id, [bobToSales, late]],
      [telegram, ALICE.id, [toMain, nextMain, lateMain]],
    ] as const) {
      const messages = bot.botMessages(chat);
      for (const update of updates) expect(repliesTo(messages, update)).toHaveLength(1);
      expect(messages).toHaveLength(updates.length);
    }
    // Both bots keep their own poll offset.
    for (const id of [FAKE_TELEGRAM.bot.id, SALES.bot.id]) {
      const offset = await crash.redis.get(
        crash.store.keys.channelState("telegram", String(id)).offset,
      );
      expect(Number(offset)).toBeGreaterThan(0);
    }
  }, 120_000);
});
