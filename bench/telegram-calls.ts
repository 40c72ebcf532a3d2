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
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { Api } from "grammy";
import { botApiFetch } from "../src/platforms/telegram/bot-api-fetch.ts";
import { FAKE_TELEGRAM } from "../src/testing/fakes/telegram-api.ts";
import { undici } from "../src/tools/web/undici.ts";

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

async function startFake(): Promise<{ child: ChildProcess; apiRoot: string }> {
  const script = fileURLToPath(new URL("./telegram-fake.ts", import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, script, String(CHATS)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return { child, apiRoot: line.toString().trim() };
}

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

/** CPU µs a call of this process, `CALLS` calls with `IN_FLIGHT` at a time. */
async function round(api: Api): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next < CALLS) await call(api, next++);
  };
  const start = process.cpuUsage();
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / CALLS;
}

const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { min: sorted[0] ?? 0, median: sorted[sorted.length >> 1] ?? 0, max: sorted.at(-1) ?? 0 };
};

export async function benchTelegramCalls(print: (line: string) => void): Promise<boolean> {
  print("\nTelegram Bot API calls: CPU of the calling side a call, in the same run");
  const { child, apiRoot } = await startFake();
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
    for (const [, api] of sides) await round(api);
    const samples = sides.map(() => [] as number[]);
    for (let r = 0; r < ROUNDS; r++) {
      const order = sides.map((_, i) => (i + r) % sides.length);
      for (const i of order) samples[i]?.push(await round((sides[i] as (typeof sides)[number])[1]));
    }
    const [base, , subject] = samples.map(stats) as [
      ReturnType<typeof stats>,
      unknown,
      ReturnType<typeof stats>,
    ];
    for (const [i, [name]] of sides.entries()) {
      const s = stats(samples[i] ?? []);
      print(
        `${name.padEnd(32)} µs a call: min ${s.min.toFixed(0).padStart(4)}  median ${s.median.toFixed(0).padStart(4)}  max ${s.max.toFixed(0).padStart(4)}  ${(s.median / base.median).toFixed(2)}x`,
      );
    }
    const ratio = subject.median / base.median;
    print(
      `${CALLS} calls a round, ${IN_FLIGHT} in flight, ${ROUNDS} rounds: pooled request ${ratio.toFixed(2)}x node-fetch (target <= ${TARGET}x: ${ratio <= TARGET ? "met" : "MISSED"})`,
    );
    return ratio <= TARGET;
  } finally {
    child.stdin?.end();
    await once(child, "exit");
  }
}
