import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TelegramChannel } from "../../src/platforms/telegram/channel.ts";
import type { TelegramOutbound } from "../../src/platforms/telegram/outbound.ts";
import {
  TelegramOutbound as Outbound,
  TelegramSetupError,
} from "../../src/platforms/telegram/outbound.ts";
import { SentLedger } from "../../src/platforms/telegram/sent-ledger.ts";
import { UpdateLedger } from "../../src/platforms/telegram/update-ledger.ts";
import { UpdateOffset } from "../../src/platforms/telegram/update-offset.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { ADA, TEAM } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { startLatencyProxy } from "../support/latency-proxy.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("telegram");
let telegram: FakeTelegram;
let topic: number;
beforeEach(async () => {
  telegram = await startFakeTelegram();
  telegram.addChat({
    id: TEAM,
    type: "supergroup",
    title: "Team",
    is_forum: true,
    admins: [ADA.id],
  });
  topic = telegram.createTopic(TEAM, "Releases", ADA);
});
afterEach(async () => {
  await telegram.close();
});

/** An answer Telegram gave that is held on its way back until `let` is called. */
function held(): { until: Promise<void>; let: () => void } {
  let go = () => {};
  const until = new Promise<void>((resolve) => {
    go = resolve;
  });
  return { until, let: () => go() };
}

/**
 * A stale run's streamed post ("The answer so", a preview of a resumed turn) and the taking-over
 * run's delivery of the whole answer race on one key: both reach Telegram, and the one named
 * `first` hears back (and is recorded) first. Returns what the chat shows and both refs.
 */
async function staleStreamRacesDelivery(key: string, first: "stale" | "delivery") {
  const answers = { stale: held(), delivery: held() };
  const proxies = await Promise.all(
    [answers.stale, answers.delivery].map((answer) =>
      startLatencyProxy({
        target: telegram.apiRoot,
        fromFake: (path) => (path.endsWith("/sendMessage") ? answer.until : 0),
      }),
    ),
  );
  try {
    const [stale, taker] = proxies.map((proxy) => {
      const channel = new TelegramChannel({ token: telegram.token, apiRoot: proxy.url });
      channel.useOutboundOnly(db.redis, db.prefix);
      return channel.outbound;
    }) as [TelegramOutbound, TelegramOutbound];
    const shown = () => telegram.botMessages(TEAM, topic).map((m) => m.text);
    const streamed = stale.post(target(), "The answer so", {
      idempotencyKey: key,
      mayExist: true,
      preview: true,
    });
    await until(() => (shown().length === 1 ? true : undefined));
    const delivered = taker.post(target(), "The answer so far, and the rest.", {
      idempotencyKey: key,
      mayExist: true,
    });
    await until(() => (shown().length === 2 ? true : undefined));
    const order =
      first === "stale" ? (["stale", "delivery"] as const) : (["delivery", "stale"] as const);
    const posts = { stale: streamed, delivery: delivered };
    const refs: Record<string, string> = {};
    for (const which of order) {
      answers[which].let();
      refs[which] = await posts[which];
    }
    return { shown: shown(), refs: { streamed: refs.stale, delivered: refs.delivery } };
  } finally {
    answers.stale.let();
    answers.delivery.let();
    await Promise.all(proxies.map((proxy) => proxy.close()));
  }
}

/** A worker process's channel: the token and the API root, never started. */
function workerChannel(): TelegramChannel {
  const channel = new TelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot });
  channel.useOutboundOnly(db.redis, db.prefix);
  return channel;
}

function target(replyTo?: number) {
  return {
    platform: "telegram",
    workspace: String(TEAM),
    channel: String(TEAM),
    conversation: `${TEAM}:${topic}`,
    thread: String(topic),
    ...(replyTo !== undefined ? { replyTo: String(replyTo) } : {}),
  };
}

describe("a worker process's Telegram outbound", () => {
  it("posts in the topic as a reply, edits and types, through the Bot API alone", async () => {
    const asked = telegram.userSends({ chat: TEAM, from: ADA, text: "status?", topic });
    const { outbound } = workerChannel();
    const ref = await outbound.post(target(asked.message?.message_id), "**Building**…", {
      idempotencyKey: "turn-1-0",
    });
    await outbound.edit(target(), ref, "**Built** in 3 min");
    await outbound.typing(target());
    const [sent] = telegram.botMessages(TEAM, topic);
    expect(sent).toMatchObject({
      message_id: Number(ref),
      text: "Built in 3 min",
      entities: [{ type: "bold", offset: 0, length: 5 }],
      reply_to_message: { message_id: asked.message?.message_id },
    });
    expect(telegram.callsTo("sendChatAction")[0]?.params).toMatchObject({
      chat_id: String(TEAM),
      action: "typing",
      message_thread_id: topic,
    });
    expect(telegram.callsTo("getMe")).toHaveLength(0);
    expect(telegram.callsTo("getUpdates")).toHaveLength(0);
  });

  it("lands a retried post once, and keeps one copy when two deliveries race", async () => {
    const { outbound } = workerChannel();
    const first = await outbound.post(target(), "the answer", { idempotencyKey: "turn-2-0" });
    const again = await outbound.post(target(), "the answer", {
      idempotencyKey: "turn-2-0",
      mayExist: true,
    });
    expect(again).toBe(first);
    const other = workerChannel().outbound;
    const raced = await Promise.all([
      outbound.post(target(), "raced", { idempotencyKey: "turn-3-0" }),
      other.post(target(), "raced", { idempotencyKey: "turn-3-0" }),
    ]);
    expect(raced[0]).toBe(raced[1]);
    expect(telegram.botMessages(TEAM, topic).map((m) => m.text)).toEqual(["the answer", "raced"]);
  });

  it("brings a message found under its key to the new text when a resumed delivery posts it", async () => {
    const { outbound } = workerChannel();
    // A streamed partial is the answer's first part: the resumed turn's post finds it and finishes it.
    const partial = await outbound.post(target(), "The answer so", { idempotencyKey: "turn-4-0" });
    const resumed = await outbound.post(target(), "The answer so far, and the rest.", {
      idempotencyKey: "turn-4-0",
      mayExist: true,
    });
    expect(resumed).toBe(partial);
    expect(telegram.botMessages(TEAM, topic).map((m) => m.text)).toEqual([
      "The answer so far, and the rest.",
    ]);
  });

  it("finishes the streamed start another run recorded first when a resumed delivery's own copy loses the race", async () => {
    // A run that lost the turn (Redis restarted under it) was still posting the streamed start
    // of the answer while the run that took the turn over delivered all of it, under the same key.
    const { shown, refs } = await staleStreamRacesDelivery("turn-9-0", "stale");
    expect(refs.delivered).toBe(refs.streamed);
    expect(shown).toEqual(["The answer so far, and the rest."]);
  });

  it("leaves the answer as it is when a stale run's streamed start is recorded after it", async () => {
    const { shown, refs } = await staleStreamRacesDelivery("turn-10-0", "delivery");
    expect(refs.streamed).toBe(refs.delivered);
    expect(shown).toEqual(["The answer so far, and the rest."]);
  });

  it("sends again over a send whose worker died before Telegram answered, and says it may be doubled", async () => {
    // The dead worker's sendMessage reached Telegram; its answer never came back to be recorded.
    const proxy = await startLatencyProxy({
      target: telegram.apiRoot,
      fromFake: (path) => (path.endsWith("/sendMessage") ? 60_000 : 0),
    });
    try {
      const dying = new TelegramChannel({ token: telegram.token, apiRoot: proxy.url });
      dying.useOutboundOnly(db.redis, db.prefix);
      void dying.outbound
        .post(target(), "the answer", { idempotencyKey: "turn-5-0" })
        .catch(() => {});
      await until(() => (telegram.botMessages(TEAM, topic).length === 1 ? true : undefined));
      const warnings: string[] = [];
      const resumer = new TelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot });
      resumer.useOutboundOnly(db.redis, db.prefix, { warn: (message) => warnings.push(message) });
      await resumer.outbound.post(target(), "the answer", {
        idempotencyKey: "turn-5-0",
        mayExist: true,
      });
      // Telegram cannot be asked for the first copy: this is the window docs/platforms/telegram.md documents.
      expect(telegram.botMessages(TEAM, topic).map((m) => m.text)).toEqual([
        "the answer",
        "the answer",
      ]);
      expect(warnings).toEqual([expect.stringMatching(/may appear twice/)]);
    } finally {
      await proxy.close();
    }
  });

  it("sends a part that grows past 4,096 characters when converted as more messages, and edits them all", async () => {
    const { outbound } = workerChannel();
    // Each rule is 3 characters of markdown and 10 of Telegram text.
    const markdown = Array.from({ length: 700 }, () => "***").join("\n\n");
    expect(markdown.length).toBeLessThanOrEqual(outbound.maxLength);
    const ref = await outbound.post(target(), markdown, { idempotencyKey: "turn-4-0" });
    const posted = telegram.botMessages(TEAM, topic);
    expect(posted.length).toBeGreaterThan(1);
    expect(String(posted[0]?.message_id)).toBe(ref);
    for (const message of posted) expect((message.text ?? "").length).toBeLessThanOrEqual(4_096);

    await outbound.edit(target(), ref, `**Now bold**\n\n${markdown}`);
    const edited = telegram.botMessages(TEAM, topic);
    expect(edited).toHaveLength(posted.length);
    expect(edited[0]?.text?.startsWith("Now bold")).toBe(true);
    expect(edited.every((m) => (m.text ?? "").length <= 4_096)).toBe(true);
  });

  it("sends the answer as plain text when Telegram refuses its HTML, and says so", async () => {
    const channel = new TelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot });
    const warnings: string[] = [];
    channel.useOutboundOnly(db.redis, db.prefix, {
      warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`),
    });
    telegram.failNext("sendMessage", {
      code: 400,
      description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0',
    });
    await channel.outbound.post(target(), "**still** delivered", { idempotencyKey: "turn-6-0" });
    const [sent] = telegram.botMessages(TEAM, topic);
    expect(sent?.text).toBe("still delivered");
    expect(sent?.entities).toBeUndefined();
    expect(warnings[0]).toContain("sent as plain text");
    expect(warnings.join("\n")).not.toContain(telegram.token);
  });

  it("refuses to post before it has Redis to remember posts in, saying what to call", async () => {
    const channel = new TelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot });
    const error = await channel.outbound
      .post(target(), "hi", { idempotencyKey: "turn-5-0" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TelegramSetupError);
    expect((error as Error).message).toMatch(/useOutboundOnly\(redis, prefix\)/);
    expect(telegram.botMessages(TEAM)).toHaveLength(0);
  });
});

describe("the Telegram channel's records in Redis", () => {
  it("takes an update once: a second delivery waits while it is taken, and finds it done after", async () => {
    const ledger = new UpdateLedger(db.redis, `${db.prefix}:telegram:1`);
    expect(await ledger.claim(41)).toBe("fresh");
    expect(await ledger.claim(41)).toBe("taking");
    await ledger.done(41);
    expect(await ledger.claim(41)).toBe("done");
    // A failed take lets go, so Telegram's redelivery is taken.
    expect(await ledger.claim(42)).toBe("fresh");
    await ledger.release(42);
    expect(await ledger.claim(42)).toBe("fresh");
    // A finished one is never released.
    await ledger.release(41);
    expect(await ledger.claim(41)).toBe("done");
  });

  it("keeps the update offset moving forward only", async () => {
    const offset = new UpdateOffset(db.redis, `${db.prefix}:telegram:1:offset`);
    expect(await offset.read()).toBeUndefined();
    expect(await offset.advance(10)).toBe(10);
    expect(await offset.advance(7)).toBe(10);
    expect(await offset.read()).toBe(10);
  });
});

describe("the finished answer's edit", () => {
  it("is not held behind the chat's streaming pace: with a minute between streaming edits it still lands", async () => {
    const channel = new TelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot });
    // A pace of one edit a minute: an edit that waited for its slot would outlast the test.
    const outbound = new Outbound(
      () => channel.api,
      telegram.token,
      60_000,
      () => telegram.apiRoot,
    );
    outbound.attach(new SentLedger(db.redis, db.prefix));
    const target = {
      platform: "telegram",
      workspace: String(TEAM),
      channel: String(TEAM),
      conversation: `${TEAM}:${topic}`,
      thread: String(topic),
    };
    const ref = await outbound.post(target, "The answer so", {
      idempotencyKey: "pace-0",
      preview: true,
    });
    await outbound.edit(target, ref, "The answer so far");
    await outbound.edit(target, ref, "The answer, finished.", { final: true });
    const edits = telegram.callsTo("editMessageText").map((call) => call.params.text);
    expect(edits).toEqual(["The answer so far", "The answer, finished."]);
  });
});
