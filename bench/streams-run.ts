/**
 * One run of the streams load test: `switchyard start --role ingress` and
 * `--role worker` as their own processes at default settings, the fake
 * Telegram Bot API with Telegram's flood limits, and a fake model that
 * streams each answer over a set time; N people write at once, each in a
 * private chat of their own. Everything is measured from outside: what the
 * fakes saw, the worker's /metrics and its /proc entry.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { User } from "grammy/types";
import { Redis } from "ioredis";
import { toTelegramHtml } from "../src/platforms/telegram/format.ts";
import { type RecordedRequest, startFakeOpenAI } from "../src/testing/fakes/openai-server.ts";
import {
  type FakeTelegram,
  type RecordedTelegramCall,
  startFakeTelegram,
} from "../src/testing/fakes/telegram-api.ts";
import { parseTelegramHtml } from "../src/testing/fakes/telegram-html.ts";
import { TELEGRAM_LIMITS } from "../src/testing/fakes/telegram-limits.ts";
import { ioFloor } from "./streams-io-floor.ts";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/**
 * The built CLI, as an installed package runs `switchyard start`. Not
 * bin/switchyard.js: in a checkout it runs the source through tsx, and a
 * worker then also holds tsx's loader thread and every module's source and
 * source map, some 40 MB of RSS that no deployment has (issue 36).
 */
const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const SRC = fileURLToPath(new URL("../src", import.meta.url));
const OPEN_DMS = fileURLToPath(new URL("../test/fixtures/access/open-dms.yaml", import.meta.url));

export interface StreamsShape {
  /** People who write at once. */
  readonly conversations: number;
  /** How long the model streams each answer, ms. */
  readonly answerMs: number;
  /**
   * Answers go out as paid broadcasts (`telegram: paid_broadcast: true`):
   * Telegram then takes 1,000 new messages a second from the bot, not 30.
   */
  readonly paidBroadcast?: boolean;
  /** How long a run may take before what is not answered counts as late (or lost), ms. */
  readonly deadlineMs: number;
  /** Conversations answered before the measured ones, on the same processes. */
  readonly warmup: number;
}

/** What one run measured; times in ms, CPU in ms per turn, RSS in MB. */
export interface StreamsRunFigures {
  readonly done: number;
  /** Answers whose model stream ended well before the deadline, yet never shown whole. */
  readonly lost: number;
  /** Answers still coming at the deadline (the model had not finished them). */
  readonly late: number;
  /** Conversations with more than one message from the bot, or a complete answer shown twice. */
  readonly doubled: number;
  /** Answers shown whole whose text was not the model's answer (cut, or a part missing). */
  readonly incomplete: number;
  readonly wallMs: number;
  readonly turnsPerSecond: number;
  /** Model requests made, all chats together: more than one a chat is a retry or a restart. */
  readonly modelRequests: number;
  /** Model streams open at once, at most. */
  readonly maxInFlight: number;
  /** How long the model took to stream one answer, median: the floor of the wall time. */
  readonly modelStreamMs: number;
  /** The worker's event-loop delay p99 over the run (prom-client's monitor). */
  readonly eventLoopP99Ms: number;
  /** The person's message to the model's request, median. */
  readonly messageToModelP50Ms: number;
  readonly firstTokenToVisibleP50Ms: number;
  readonly firstTokenToVisibleP99Ms: number;
  /** The model's last chunk to the whole answer shown. */
  readonly finalEditP50Ms: number;
  readonly finalEditP99Ms: number;
  /**
   * The model's last chunk to the whole answer in front of the person, in a
   * draft or a message, whichever came first: while a message waits for the
   * bot's pace, a draft may already show all of it.
   */
  readonly wholeShownP99Ms: number;
  /**
   * The least the wall time and the final edit's p99 could be, given when
   * the model ended each answer and the bot-wide pace of new messages the
   * fake Telegram allows (see {@link deliveryFloor}): what the platform
   * alone costs, so the rest is the engine's.
   */
  readonly floorWallMs: number;
  readonly floorFinalEditP99Ms: number;
  /** The worker's peak resident memory (VmHWM). */
  readonly workerRssMb: number;
  /**
   * CPU this process spent over the run, the fakes' share: the fake model
   * and the fake Telegram run here, on the same two cores as the worker.
   */
  readonly fakesCpuMs: number;
  readonly cpuMsPerTurn: number;
  /**
   * CPU per turn of a process that only moves a turn's bytes with Node's
   * fetch: reads the same streamed answer and makes as many Telegram calls
   * of the same size ({@link ioFloor}). No engine on Node spends less.
   */
  readonly ioFloorCpuMsPerTurn: number;
  /** 429s Telegram answered, and calls the bot made to a chat during the wait it was told. */
  readonly floodWaits: number;
  readonly floodWaitsIgnored: number;
  /** Calls the bot made to the measured chats, a chat: each is worker CPU and a Telegram round trip. */
  readonly telegramCallsPerTurn: number;
}

/** One run's figures, and its Telegram calls a chat by method (`sendMessageDraft: 6.1`). */
export type StreamsRunResult = StreamsRunFigures & {
  readonly callsPerTurnByMethod: Readonly<Record<string, number>>;
};

const FIRST_WORD = "Sure";

/** New messages a second Telegram takes from a bot that pays for broadcasts. */
const PAID_BROADCAST_PER_SECOND = 1_000;

/** The bench's config with `telegram: paid_broadcast: true`, written once to a temporary file. */
function paidBroadcastConfig(): string {
  const file = join(tmpdir(), `switchyard-bench-paid-${process.pid}.yaml`);
  writeFileSync(file, `${readFileSync(OPEN_DMS, "utf8")}\ntelegram:\n  paid_broadcast: true\n`);
  return file;
}

/** A markdown answer of about 150 words with the blocks a model writes: heading, list, code. */
export function answerFor(conversation: number): string {
  const steps = Array.from(
    { length: 8 },
    (_, i) =>
      `- Step ${i + 1}: the worker takes the **message**, reads the history and asks the model for more words.`,
  ).join("\n");
  return [
    `${FIRST_WORD}, conversation ${conversation}. Here is the plan, in order.`,
    "## What happens",
    "The message goes through the *ingress*, then the queue, then one turn on the worker.",
    steps,
    "```ts\nconst answer = await turn.run(message);\n```",
    `That is all for conversation ${conversation}.`,
  ].join("\n\n");
}

/** The text Telegram shows for an answer: what the fake stores from the bot's HTML. */
function shownText(markdown: string): string {
  return parseTelegramHtml(toTelegramHtml(markdown)).text;
}

/** Runs the load once on fresh processes and fakes; resolves with what it measured. */
export async function streamsRun(shape: StreamsShape): Promise<StreamsRunResult> {
  checkBuilt();
  const prefix = `bench-streams-${process.pid}-${Date.now()}`;
  const telegram = await startFakeTelegram({ limits: TELEGRAM_LIMITS });
  // The fake streams a word per chunk, after a role chunk, and ends with the finish reason.
  const chunks = (answerFor(0).match(/\S+\s*|\s+/g)?.length ?? 0) + 2;
  const chunkDelayMs = Math.max(1, Math.round(shape.answerMs / chunks));
  const openai = await startFakeOpenAI({
    responder: (request) => ({ content: answerFor(conversationOf(request)), chunkDelayMs }),
  });
  const processes: Started[] = [];
  try {
    const metricsPort = await freePort();
    const env = {
      REDIS_URL,
      SWITCHYARD_PREFIX: prefix,
      SWITCHYARD_CONFIG: shape.paidBroadcast ? paidBroadcastConfig() : OPEN_DMS,
      OPENAI_BASE_URL: openai.url,
      OPENAI_API_KEY: "bench",
      SWITCHYARD_MODEL: "fake-model",
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: `${telegram.apiRoot}/`,
    };
    const worker = await startRole("worker", {
      ...env,
      SWITCHYARD_METRICS_PORT: String(metricsPort),
    });
    processes.push(worker);
    processes.push(await startRole("ingress", { ...env, SWITCHYARD_METRICS_PORT: "0" }));

    // Warm up on the same processes, in chats of their own, then measure.
    const warm = Array.from({ length: shape.warmup }, (_, i) => 900_000 + i);
    sendAll(telegram, warm);
    await answered(telegram, warm, Date.now() + shape.deadlineMs);

    const chats = Array.from({ length: shape.conversations }, (_, i) => 100_000 + i);
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const before = await scrape(metricsUrl);
    const callsBefore = telegram.calls.length;
    const requestsBefore = openai.requests.length;
    const started = Date.now();
    const cpuBefore = process.cpuUsage();
    sendAll(telegram, chats);
    const deadline = started + shape.deadlineMs;
    await answered(telegram, chats, deadline);
    const after = await scrape(metricsUrl);
    const cpu = process.cpuUsage(cpuBefore);
    const peakRssMb = vmHwmMb(worker.child.pid);
    const calls = telegram.calls.slice(callsBefore);
    // Taken before the I/O floor asks the same fake model for its own answers.
    const requests = openai.requests.slice(requestsBefore);
    const workerCalls = calls.filter((call) => call.method !== "getUpdates");
    const callsPerTurn = workerCalls.length / chats.length;
    // The worker is stopped first, so the floor has the machine the worker had.
    for (const started of processes.splice(0)) await started.stop();
    const ioFloorCpuMsPerTurn = await ioFloor({
      modelUrl: `${openai.url}/chat/completions`,
      callUrl: `${telegram.apiRoot}/bot${telegram.token}/getMe`,
      turns: chats.length,
      callBytes: Array.from({ length: Math.round(callsPerTurn) }, () =>
        Math.round(
          workerCalls.reduce((sum, call) => sum + JSON.stringify(call.params).length, 0) /
            Math.max(1, workerCalls.length),
        ),
      ),
      firstConversation: 700_000,
    });
    return figures({
      chats,
      started,
      deadline,
      calls,
      requests,
      telegram,
      before,
      after,
      peakRssMb,
      fakesCpuMs: (cpu.user + cpu.system) / 1000,
      ioFloorCpuMsPerTurn,
      botPerSecond: shape.paidBroadcast
        ? PAID_BROADCAST_PER_SECOND
        : TELEGRAM_LIMITS.perBotPerSecond,
    });
  } finally {
    for (const started of processes) await started.stop();
    await telegram.close();
    await openai.close();
    await deleteKeys(prefix);
  }
}

function person(chat: number): User {
  return { id: chat, is_bot: false, first_name: `Person ${chat}` };
}

function sendAll(telegram: FakeTelegram, chats: readonly number[]): void {
  for (const chat of chats)
    telegram.addChat({ id: chat, type: "private", title: `Person ${chat}` });
  for (const chat of chats) {
    telegram.userSends({
      chat,
      from: person(chat),
      text: `conversation ${chat}: how does it work?`,
    });
  }
}

/** Which conversation a model request is for: the number its person wrote. */
function conversationOf(request: RecordedRequest): number {
  const raw = JSON.stringify(request.body?.messages ?? []);
  return Number(/conversation (\d+):/.exec(raw)?.[1] ?? 0);
}

/** Waits until every chat shows its whole answer, or the deadline passes. */
async function answered(telegram: FakeTelegram, chats: readonly number[], deadline: number) {
  const waiting = new Map(chats.map((chat) => [chat, shownText(answerFor(chat))]));
  while (waiting.size > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const byChat = new Map<number, string[]>();
    for (const message of telegram.messages) {
      if (message.from?.is_bot !== true) continue;
      const list = byChat.get(message.chat.id) ?? [];
      list.push(message.text ?? "");
      byChat.set(message.chat.id, list);
    }
    for (const [chat, expected] of waiting) {
      if (byChat.get(chat)?.includes(expected)) waiting.delete(chat);
    }
  }
}

interface Collected {
  readonly chats: readonly number[];
  readonly started: number;
  readonly deadline: number;
  readonly calls: readonly RecordedTelegramCall[];
  readonly requests: readonly RecordedRequest[];
  readonly telegram: FakeTelegram;
  readonly before: Metrics;
  readonly after: Metrics;
  readonly peakRssMb: number;
  readonly fakesCpuMs: number;
  readonly ioFloorCpuMsPerTurn: number;
  /** New messages a second the fake took from the bot in this run. */
  readonly botPerSecond: number;
}

const SHOWING = new Set(["sendMessage", "editMessageText", "sendMessageDraft"]);

function figures(c: Collected): StreamsRunResult {
  const callsByChat = new Map<number, RecordedTelegramCall[]>();
  for (const call of c.calls) {
    const chat = Number(call.params.chat_id);
    const list = callsByChat.get(chat) ?? [];
    list.push(call);
    callsByChat.set(chat, list);
  }
  const requestByChat = new Map<number, RecordedRequest>();
  for (const request of c.requests) {
    const chat = conversationOf(request);
    if (!requestByChat.has(chat)) requestByChat.set(chat, request);
  }
  let done = 0;
  let lost = 0;
  let late = 0;
  let doubled = 0;
  let incomplete = 0;
  let lastShown = c.started;
  const toModel: number[] = [];
  const toVisible: number[] = [];
  const finalEdit: number[] = [];
  const wholeShown: number[] = [];
  for (const chat of c.chats) {
    const expected = shownText(answerFor(chat));
    const request = requestByChat.get(chat);
    const calls = (callsByChat.get(chat) ?? []).filter(
      (call) => call.status === 200 && SHOWING.has(call.method),
    );
    const messages = c.telegram.botMessages(chat);
    if (messages.length > 1 || messages.filter((m) => m.text === expected).length > 1) doubled++;
    const whole = calls.find(
      (call) => call.method !== "sendMessageDraft" && shown(call) === expected,
    );
    if (request?.at !== undefined) toModel.push(request.at - c.started);
    const firstVisible = calls.find((call) => shown(call).includes(FIRST_WORD));
    if (request?.firstContentAt !== undefined && firstVisible?.appliedAt !== undefined) {
      toVisible.push(firstVisible.appliedAt - request.firstContentAt);
    }
    const firstWhole = calls.find((call) => shown(call) === expected);
    if (firstWhole?.appliedAt !== undefined && request?.endedAt !== undefined) {
      wholeShown.push(firstWhole.appliedAt - request.endedAt);
    }
    if (whole?.appliedAt !== undefined) {
      done++;
      lastShown = Math.max(lastShown, whole.appliedAt);
      if (request?.endedAt !== undefined) finalEdit.push(whole.appliedAt - request.endedAt);
    } else if (messages.some((m) => m.text?.startsWith(FIRST_WORD) && m.text !== expected)) {
      if (request?.endedAt !== undefined && request.endedAt < c.deadline - 10_000) incomplete++;
      else late++;
    } else if (request?.endedAt !== undefined && request.endedAt < c.deadline - 10_000) lost++;
    else late++;
  }
  const wallMs = lastShown - c.started;
  // BENCH_STREAMS_TRACE=file: each chat's model request and Telegram calls, times from the start.
  const trace = process.env.BENCH_STREAMS_TRACE;
  if (trace) {
    const rel = (t: number | undefined) => (t === undefined ? undefined : t - c.started);
    const chats = c.chats.map((chat) => {
      const r = requestByChat.get(chat);
      return {
        chat,
        model: { at: rel(r?.at), first: rel(r?.firstContentAt), ended: rel(r?.endedAt) },
        calls: (callsByChat.get(chat) ?? []).map((call) => ({
          method: call.method,
          at: rel(call.at),
          applied: rel(call.appliedAt),
          status: call.status,
        })),
      };
    });
    writeFileSync(trace, JSON.stringify(chats));
  }
  const flood = c.telegram.flood;
  const byMethod: Record<string, number> = {};
  for (const chat of c.chats) {
    for (const call of callsByChat.get(chat) ?? []) {
      byMethod[call.method] = (byMethod[call.method] ?? 0) + 1 / c.chats.length;
    }
  }
  return {
    done,
    lost,
    late,
    doubled,
    incomplete,
    wallMs,
    turnsPerSecond: done / (wallMs / 1000),
    modelRequests: c.requests.length,
    maxInFlight: maxOverlap(c.requests),
    modelStreamMs: percentile(
      c.requests.flatMap((r) =>
        r.at !== undefined && r.endedAt !== undefined ? [r.endedAt - r.at] : [],
      ),
      0.5,
    ),
    eventLoopP99Ms: (c.after.eventLoopP99 ?? Number.NaN) * 1000,
    messageToModelP50Ms: percentile(toModel, 0.5),
    firstTokenToVisibleP50Ms: percentile(toVisible, 0.5),
    firstTokenToVisibleP99Ms: percentile(toVisible, 0.99),
    finalEditP50Ms: percentile(finalEdit, 0.5),
    finalEditP99Ms: percentile(finalEdit, 0.99),
    wholeShownP99Ms: percentile(wholeShown, 0.99),
    ...deliveryFloor(
      c.chats.flatMap((chat) => {
        const ended = requestByChat.get(chat)?.endedAt;
        return ended !== undefined ? [ended] : [];
      }),
      c.started,
      c.botPerSecond,
    ),
    workerRssMb: c.peakRssMb,
    fakesCpuMs: c.fakesCpuMs,
    cpuMsPerTurn: ((c.after.cpuSeconds - c.before.cpuSeconds) * 1000) / Math.max(1, done),
    ioFloorCpuMsPerTurn: c.ioFloorCpuMsPerTurn,
    floodWaits: flood?.refusals.filter((r) => r.at >= c.started).length ?? 0,
    floodWaitsIgnored: flood?.early.filter((r) => r.at >= c.started).length ?? 0,
    telegramCallsPerTurn: Object.values(byMethod).reduce((sum, n) => sum + n, 0),
    callsPerTurnByMethod: byMethod,
  };
}

/**
 * The earliest each answer could be shown whole, had the engine cost
 * nothing: its final message leaves the moment the model ends it, unless
 * the bot's bucket of new messages (the fake's: `perSecond` at once, then
 * `perSecond` a second) is empty, when it waits for the next token. Models
 * that end together queue here; this is the platform's share of the wall
 * time and of the final edit's delay, and no engine can go below it.
 */
export function deliveryFloor(
  ends: readonly number[],
  started: number,
  perSecond: number,
): { floorWallMs: number; floorFinalEditP99Ms: number } {
  const sorted = [...ends].sort((a, b) => a - b);
  let tokens = perSecond;
  let at = started;
  let last = started;
  const waits: number[] = [];
  for (const end of sorted) {
    const now = Math.max(at, end);
    tokens = Math.min(perSecond, tokens + ((now - at) * perSecond) / 1000);
    at = now;
    if (tokens < 1) {
      at += ((1 - tokens) * 1000) / perSecond;
      tokens = 1;
    }
    tokens -= 1;
    waits.push(at - end);
    last = Math.max(last, at);
  }
  return {
    floorWallMs: sorted.length > 0 ? last - started : Number.NaN,
    floorFinalEditP99Ms: percentile(waits, 0.99),
  };
}

/** The text a call showed, as Telegram shows its HTML. */
function shown(call: RecordedTelegramCall): string {
  const text = call.params.text;
  if (typeof text !== "string") return "";
  try {
    return call.params.parse_mode === "HTML" ? parseTelegramHtml(text).text : text.trim();
  } catch {
    return "";
  }
}

/** The most model requests open at one time. */
function maxOverlap(requests: readonly RecordedRequest[]): number {
  const edges: [number, number][] = [];
  for (const r of requests) {
    if (r.at === undefined) continue;
    edges.push([r.at, 1], [r.endedAt ?? Number.POSITIVE_INFINITY, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, step] of edges) {
    open += step;
    most = Math.max(most, open);
  }
  return most;
}

export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

interface Metrics {
  readonly cpuSeconds: number;
  readonly eventLoopP99: number | undefined;
}

/** The worker's CPU so far and its event-loop delay p99 since the last scrape (prom-client resets it on each). */
async function scrape(url: string): Promise<Metrics> {
  const text = await (await fetch(url)).text();
  const value = (name: string) => {
    const match = new RegExp(`^${name} ([0-9.eE+-]+)`, "m").exec(text);
    return match ? Number(match[1]) : undefined;
  };
  return {
    cpuSeconds: value("process_cpu_seconds_total") ?? Number.NaN,
    eventLoopP99: value("nodejs_eventloop_lag_p99_seconds"),
  };
}

/** A process's peak resident memory, MB (Linux; NaN elsewhere). */
function vmHwmMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

interface Started {
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

const READY = { ingress: "channels started", worker: "worker started" } as const;

/** `switchyard start --role <role>` with the product's defaults plus `env`; resolves once it is ready. */
async function startRole(
  role: "ingress" | "worker",
  env: Record<string, string>,
): Promise<Started> {
  // BENCH_STREAMS_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof" profiles both processes (Node refuses it in NODE_OPTIONS).
  const nodeArgs = process.env.BENCH_STREAMS_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, CLI, "start", "--role", role], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  // Keep only the last of its logs, for the error when it fails to start; all of them with BENCH_STREAMS_LOGS=dir.
  let tail = "";
  const logDir = process.env.BENCH_STREAMS_LOGS;
  if (logDir) {
    mkdirSync(logDir, { recursive: true });
    child.stderr?.pipe(createWriteStream(`${logDir}/${role}-${child.pid}.log`));
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${role} not ready in 60 s:\n${tail}`)),
      60_000,
    );
    child.stderr?.on("data", (chunk) => {
      tail = (tail + String(chunk)).slice(-20_000);
      if (tail.includes(READY[role])) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${role} exited before it was ready:\n${tail}`));
    });
  });
  return {
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** The processes run dist/: it must be there, and newer than every source file. */
function checkBuilt(): void {
  const built = existsSync(CLI) ? statSync(CLI).mtimeMs : 0;
  const newest = Math.max(
    ...readdirSync(SRC, { recursive: true, encoding: "utf8" }).map(
      (name) => statSync(join(SRC, name)).mtimeMs,
    ),
  );
  if (built < newest) {
    throw new Error(
      `dist/cli.js is ${built === 0 ? "missing" : "older than src/"}: run \`npm run build\` first. The streams bench starts the built worker, as a deployment runs it.`,
    );
  }
}

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** Deletes what a bench run left under its prefix. */
export async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `*${prefix}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
