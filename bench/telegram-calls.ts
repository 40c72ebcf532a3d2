/**
 * What a Telegram Bot API call costs the calling side's CPU (issue 36): the
 * pooled undici request every grammY client of Switchyard now calls with
 * (src/platforms/telegram/bot-api-fetch.ts) against grammY's default,
 * node-fetch over `node:http`, with undici's own `fetch` beside them for
 * the record. Each round makes the calls of a streamed turn (two
 * sendChatAction, six sendMessageDraft, one sendMessage) many times over,
 * with a couple of hundred in flight, through grammY's `Api`, against the
 * fake Telegram in a child process, so that `process.cpuUsage` here is the
 * caller's alone. The sides take turns, in a changing order, in the same
 * run. `npm run bench -- telegram-calls`.
 */
import { Api } from "grammy";
import { botApiFetch } from "../src/platforms/telegram/bot-api-fetch.ts";
import { FAKE_TELEGRAM } from "../src/testing/fakes/telegram-api.ts";
import { undici } from "../src/tools/web/undici.ts";
import { compareSides, cpuPerCall, startFakeProcess } from "./caller-cpu.ts";

/** The pooled request must cost at most this share of node-fetch's CPU a call. */
const TARGET = 0.8;
const CALLS = 2_000;
const IN_FLIGHT = 200;
const ROUNDS = 7;
const CHATS = 1_000;

/** A streamed turn's calls, in the order a worker makes them. */
const TURN = [
  "sendChatAction",
  "sendChatAction",
  ...Array<string>(6).fill("sendMessageDraft"),
  "sendMessage",
] as const;

/** undici's WHATWG fetch on a pool like the one botApiFetch keeps, grammY's signal carried over. */
function undiciFetch(): typeof fetch {
  const { Agent, fetch: fetchOf } = undici();
  const dispatcher = new Agent({ connections: 256, headersTimeout: 0, bodyTimeout: 0 });
  return ((url: string, init: RequestInit) => {
    // undici's fetch takes only a native AbortSignal; grammY's is a polyfill.
    const controller = new AbortController();
    init.signal?.addEventListener("abort", () => controller.abort());
    return fetchOf(url, {
      method: init.method ?? "GET",
      headers: init.headers as Record<string, string>,
      body: init.body as string,
      signal: controller.signal,
      duplex: "half",
      dispatcher,
    });
  }) as unknown as typeof fetch;
}

/** One call of the turn's `step`-th kind, to a chat of its own. */
function call(api: Api, at: number): Promise<unknown> {
  const chat = (at % CHATS) + 1;
  const method = TURN[at % TURN.length];
  if (method === "sendChatAction") return api.sendChatAction(chat, "typing");
  if (method === "sendMessageDraft") {
    return api.sendMessageDraft(chat, 1 + (at % 7), "A draft that grows, <b>word</b> by word");
  }
  return api.sendMessage(chat, "The answer, <b>whole</b>, at last.", { parse_mode: "HTML" });
}

export async function benchTelegramCalls(print: (line: string) => void): Promise<boolean> {
  print("\nTelegram Bot API calls: CPU of the calling side a call, in the same run");
  const fake = await startFakeProcess("./telegram-fake.ts", [String(CHATS)]);
  const apiRoot = fake.address;
  try {
    const sides = [
      ["node-fetch (grammY's default)", new Api(FAKE_TELEGRAM.token, { apiRoot })],
      ["undici fetch", new Api(FAKE_TELEGRAM.token, { apiRoot, fetch: undiciFetch() })],
      [
        "pooled request (botApiFetch)",
        new Api(FAKE_TELEGRAM.token, { apiRoot, fetch: botApiFetch }),
      ],
    ] as const;
    // Each side must be answered alike before its time means anything.
    for (const [name, api] of sides) {
      const sent = (await call(api, TURN.length - 1)) as { text?: string };
      if (sent.text !== "The answer, whole, at last.") {
        print(`${name}: the fake answered ${JSON.stringify(sent)}`);
        return false;
      }
    }
    const round = (api: Api) => cpuPerCall(CALLS, IN_FLIGHT, (at) => call(api, at));
    const [base, , subject] = await compareSides(sides, ROUNDS, round, print, " µs a call");
    const ratio = (subject?.median ?? 0) / (base?.median ?? 1);
    print(
      `${CALLS} calls a round, ${IN_FLIGHT} in flight, ${ROUNDS} rounds: pooled request ${ratio.toFixed(2)}x node-fetch (target <= ${TARGET}x: ${ratio <= TARGET ? "met" : "MISSED"})`,
    );
    return ratio <= TARGET;
  } finally {
    await fake.stop();
  }
}
