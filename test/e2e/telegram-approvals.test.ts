import { readFileSync } from "node:fs";
import type { Message, Update, User } from "grammy/types";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_APPROVAL_POLICY } from "../../src/core/approvals/approval.ts";
import { requestText } from "../../src/core/approvals/request.ts";
import { telegramAddress } from "../../src/platforms/telegram/normalize.ts";
import { ADA, ALICE, BOB, TEAM, type TelegramSetup, useTelegram } from "../fakes/telegram-setup.ts";
import {
  approvalControls,
  deployRuns,
  deployTool,
  parkedWait,
  parkRequest,
} from "../support/approvals.ts";
import { until } from "../support/channels.ts";
import { connectRedis, uniquePrefix } from "../support/redis.ts";
import { settle } from "../support/slack-harness.ts";

const { start } = useTelegram();

const address = telegramAddress(TEAM, undefined, "chat");
const target = { ...address };
const ARGS = '{"chat":"ops","text":"<b>deploy</b> now @everyone"}';

/** The Bot API's callback_query (test/fixtures/telegram/bot-api-shapes.json), on our message. */
const PRESS = (
  JSON.parse(
    readFileSync(new URL("../fixtures/telegram/bot-api-shapes.json", import.meta.url), "utf8"),
  ) as { name: string; update: Update }[]
).find((f) => f.name === "callback_query with data no list of the bot makes")?.update as Update;

// Above the fake's own ids (700,000,000 up), as a later update's id is above every earlier one.
let updates = 900_000_000;

function press(from: User, message: Message, data: string): Update {
  updates += 1;
  const query = PRESS.callback_query as NonNullable<Update["callback_query"]>;
  return {
    update_id: updates,
    callback_query: {
      ...query,
      id: `1822079810${updates}`,
      from,
      message,
      chat_instance: String(TEAM),
      data,
    },
  };
}

/** A request parked for `send_message`, posted in the group with its keys. */
async function postedRequest(setup: TelegramSetup) {
  const parked = await parkRequest(
    setup.pipe.app,
    address,
    { tool: "send_message", arguments: ARGS },
    { user: String(ALICE.id), name: "Alice" },
  );
  const text = requestText(parked.wait, DEFAULT_APPROVAL_POLICY);
  const options = { idempotencyKey: `request:${parked.id}`, controls: approvalControls(parked.id) };
  const ref = await setup.channel.outbound.post(target, text, options);
  const message = () =>
    setup.telegram.botMessages(TEAM).find((m) => m.message_id === Number(ref)) as Message;
  return { ...parked, ref, text, options, message };
}

/** What the callback query for this update was answered with. */
function answerTo(setup: TelegramSetup, update: Update) {
  return setup.telegram
    .callsTo("answerCallbackQuery")
    .find((c) => c.params.callback_query_id === update.callback_query?.id)?.params as
    | { text?: string; show_alert?: boolean }
    | undefined;
}

describe("Telegram approval requests", () => {
  it("show an inline keyboard, post once however often delivered, and lose it when edited", async () => {
    const setup = await start({ pipeline: { worker: false } });
    const request = await postedRequest(setup);
    expect(
      request
        .message()
        .reply_markup?.inline_keyboard.map((row) =>
          row.map((k) => ("callback_data" in k ? k.callback_data : undefined)),
        ),
    ).toEqual([
      [`ap:${request.id}:a`, `ap:${request.id}:c`],
      [`ap:${request.id}:d`, `ap:${request.id}:s`],
    ]);
    // The arguments are text, never markup: <b> arrives as the characters people typed.
    expect(request.message().text).toContain('"<b>deploy</b> now');
    expect(request.message().entities?.some((e) => e.type === "bold")).not.toBe(true);

    const again = await setup.channel.outbound.post(target, request.text, {
      ...request.options,
      mayExist: true,
    });
    expect(again).toBe(request.ref);
    expect(setup.telegram.callsTo("sendMessage")).toHaveLength(1);
    // A resumed delivery brings the request to its text but keeps its keys.
    expect(request.message().reply_markup?.inline_keyboard.flat()).toHaveLength(4);

    await setup.channel.outbound.edit(target, request.ref, "Approved by Alice: send_message.");
    expect(request.message().text).toBe("Approved by Alice: send_message.");
    expect(request.message().reply_markup).toBeUndefined();
  });

  it("take the requester's press and answer only them; a redelivered update is answered once", async () => {
    const setup = await start({ pipeline: { worker: false } });
    const request = await postedRequest(setup);
    const update = setup.telegram.sendUpdate(press(ALICE, request.message(), `ap:${request.id}:a`));
    expect(await until(() => answerTo(setup, update))).toEqual({
      callback_query_id: update.callback_query?.id,
      text: "Approved. The bot goes on.",
      show_alert: false,
    });
    expect((await setup.pipe.app.store.approvals.read(address, request.id)).decision).toMatchObject(
      { verdict: "approved", by: { user: `telegram:${ALICE.id}`, name: "Alice" } },
    );

    setup.telegram.redeliver(update);
    await settle(300);
    expect(setup.telegram.callsTo("answerCallbackQuery")).toHaveLength(1);
    // Nothing was said in the chat, and the request is left for the worker to edit.
    expect(setup.telegram.botMessages(TEAM)).toHaveLength(1);
    expect(request.message().reply_markup).toBeDefined();
  });

  it("refuse someone who may not decide with an alert, and tell a second presser who decided first", async () => {
    const setup = await start({ pipeline: { worker: false } });
    const request = await postedRequest(setup);
    const deny = `ap:${request.id}:d`;
    const refused = setup.telegram.sendUpdate(press(BOB, request.message(), deny));
    expect(await until(() => answerTo(setup, refused))).toMatchObject({
      text: "Only Alice (who asked), admins or the bot's owners can decide this request.",
      show_alert: true,
    });
    expect(
      (await setup.pipe.app.store.approvals.read(address, request.id)).decision,
    ).toBeUndefined();

    // Ada administers the group (getChatMember): admins may decide.
    const admin = setup.telegram.sendUpdate(press(ADA, request.message(), deny));
    expect((await until(() => answerTo(setup, admin)))?.text).toBe(
      "Denied. The bot goes on without it.",
    );
    const late = setup.telegram.sendUpdate(press(ALICE, request.message(), `ap:${request.id}:a`));
    expect(await until(() => answerTo(setup, late))).toMatchObject({
      text: "Ada already denied this.",
      show_alert: false,
    });
  });

  it("send the full arguments as a reply to the request, and answer foreign data without deciding", async () => {
    const setup = await start({ pipeline: { worker: false } });
    const request = await postedRequest(setup);
    const show = setup.telegram.sendUpdate(press(BOB, request.message(), `ap:${request.id}:s`));
    expect((await until(() => answerTo(setup, show)))?.text).toBe(
      "The full arguments are in the reply below.",
    );
    const details = await until(() =>
      setup.telegram
        .botMessages(TEAM)
        .find((m) => m.reply_to_message?.message_id === request.message().message_id),
    );
    expect(details.text).toContain('"chat": "ops"');
    expect(details.entities?.some((e) => e.type === "pre")).toBe(true);

    const forged = setup.telegram.sendUpdate(press(ALICE, request.message(), "ap:🙂:a"));
    expect(await until(() => answerTo(setup, forged))).toMatchObject({ show_alert: true });
    expect(answerTo(setup, forged)?.text).toMatch(/^That button is not an approval request/);
    expect(
      (await setup.pipe.app.store.approvals.read(address, request.id)).decision,
    ).toBeUndefined();
  });

  it("take /approve and /deny typed in the chat", async () => {
    const setup = await start({ pipeline: { worker: false } });
    const request = await postedRequest(setup);
    setup.telegram.userSends({
      chat: TEAM,
      from: ALICE,
      text: `/deny@${"switchyard_bot"} ${request.id}`,
    });
    const reply = await until(() =>
      setup.telegram.botMessages(TEAM).find((m) => m.text?.startsWith("Denied")),
    );
    expect(reply.text).toBe("Denied. The bot goes on without it.");
    expect((await setup.pipe.app.store.approvals.read(address, request.id)).decision?.verdict).toBe(
      "denied",
    );
  });
});

describe("a Telegram turn that calls a tool under ask", () => {
  const counter = connectRedis();
  afterAll(() => counter.disconnect());

  /** A turn parked on its request; `timeoutMs` shortens how long the request waits. */
  async function startAsking(timeoutMs?: number) {
    const prefix = uniquePrefix("telegram-ask");
    const deploy = deployTool(counter, prefix);
    const setup = await start({
      tools: [deploy],
      pipeline: {
        prefix,
        ...(timeoutMs === undefined
          ? {}
          : { approvals: { policy: () => ({ ...DEFAULT_APPROVAL_POLICY, timeoutMs }) } }),
      },
    });
    setup.pipe.fake.script(
      { toolCalls: [{ id: "call_deploy", name: "deploy", arguments: { env: "prod" } }] },
      { content: "Deployed to prod." },
    );
    setup.telegram.userSends({ chat: TEAM, from: ALICE, text: "@switchyard_bot deploy prod" });
    const wait = await parkedWait(setup.pipe.app.redis, setup.pipe.app.store, address);
    const request = structuredClone(
      setup.telegram.botMessages(TEAM).find((m) => m.message_id === Number(wait.requestRef)),
    ) as Message;
    return { setup, prefix, wait, request };
  }

  const answered = (setup: TelegramSetup) =>
    until(() =>
      setup.telegram.botMessages(TEAM).some((m) => m.text === "Deployed to prod.")
        ? true
        : undefined,
    );

  it("asks with a keyboard; a stranger's press changes nothing; the requester's approval runs the tool once and the answer follows", async () => {
    const { setup, prefix, wait, request } = await startAsking();
    const { telegram } = setup;
    expect(request.text).toContain("Approval needed: the bot wants to run deploy.");
    expect(request.reply_markup?.inline_keyboard.flat().map((k) => k.text)).toEqual([
      "Approve",
      "Approve for this conversation",
      "Deny",
      "Show arguments",
    ]);

    const stranger = telegram.sendUpdate(press(BOB, request, `ap:${wait.id}:a`));
    expect(await until(() => answerTo(setup, stranger))).toMatchObject({ show_alert: true });
    expect(await deployRuns(counter, prefix)).toBe(0);

    const approve = telegram.sendUpdate(press(ALICE, request, `ap:${wait.id}:a`));
    expect((await until(() => answerTo(setup, approve)))?.text).toBe("Approved. The bot goes on.");
    await answered(setup);
    expect(await deployRuns(counter, prefix)).toBe(1);
    const edited = telegram.botMessages(TEAM).find((m) => m.message_id === request.message_id);
    expect(edited?.text).toBe("Approved by Alice: deploy.");
    expect(edited?.reply_markup).toBeUndefined();

    // Telegram delivers the press again, and Alice presses Deny on a stale client.
    telegram.redeliver(approve);
    const late = telegram.sendUpdate(press(ALICE, request, `ap:${wait.id}:d`));
    expect((await until(() => answerTo(setup, late)))?.text).toBe("Alice already approved this.");
    await settle(300);
    expect(telegram.callsTo("answerCallbackQuery")).toHaveLength(3);
    expect(await deployRuns(counter, prefix)).toBe(1);
    expect(telegram.botMessages(TEAM).filter((m) => m.text === "Deployed to prod.")).toHaveLength(
      1,
    );
  });

  it("tells the model nobody approved in time, edits the request once to say it expired, and answers a late press without running the tool", async () => {
    const { setup, prefix, wait, request } = await startAsking(1_500);
    const { telegram } = setup;
    await answered(setup);
    const results = (setup.pipe.fake.requests[1]?.body.messages ?? []).filter(
      (m: { role: string }) => m.role === "tool",
    );
    expect(results.map((m: { content: string }) => m.content)).toEqual([
      "not run: nobody approved it within 2 s.",
    ]);
    const edited = telegram.botMessages(TEAM).find((m) => m.message_id === request.message_id);
    expect(edited?.text).toBe("Expired: nobody decided within 2 s, so deploy did not run.");
    expect(edited?.reply_markup).toBeUndefined();
    const edits = telegram
      .callsTo("editMessageText")
      .filter((c) => Number(c.params.message_id) === request.message_id);
    expect(edits).toHaveLength(1);

    // Alice presses Approve on a client that still shows the keyboard.
    const late = telegram.sendUpdate(press(ALICE, request, `ap:${wait.id}:a`));
    expect((await until(() => answerTo(setup, late)))?.text).toBe(
      "This request expired: nobody decided in time.",
    );
    await settle(300);
    expect(await deployRuns(counter, prefix)).toBe(0);
    expect(telegram.botMessages(TEAM).filter((m) => m.text === "Deployed to prod.")).toHaveLength(
      1,
    );
  });

  it("gives the model who denied the call, and the turn answers", async () => {
    const { setup, prefix, wait, request } = await startAsking();
    const deny = setup.telegram.sendUpdate(press(ADA, request, `ap:${wait.id}:d`));
    expect((await until(() => answerTo(setup, deny)))?.text).toBe(
      "Denied. The bot goes on without it.",
    );
    await answered(setup);
    const results = (setup.pipe.fake.requests[1]?.body.messages ?? []).filter(
      (m: { role: string }) => m.role === "tool",
    );
    expect(results.map((m: { content: string }) => m.content)).toEqual([
      expect.stringMatching(/^not run: Ada denied it\./),
    ]);
    expect(await deployRuns(counter, prefix)).toBe(0);
    const edited = setup.telegram
      .botMessages(TEAM)
      .find((m) => m.message_id === request.message_id);
    expect(edited?.text).toBe("Denied by Ada: deploy did not run.");
    expect(edited?.reply_markup).toBeUndefined();
  });
});
