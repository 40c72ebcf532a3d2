import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { STOPPED_WHILE_RUNNING } from "../../src/core/approvals/outcome.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import { ApprovalDesk } from "../../src/queue/approval-desk.ts";
import { ConversationQueue } from "../../src/queue/queue.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { createStore, type Store } from "../../src/store/index.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { outboundLog } from "../support/approval-process.ts";
import { parkedWait } from "../support/approvals.ts";
import {
  connectRedis,
  deleteKeysUnder,
  envWithoutRedis,
  redisEnv,
  uniquePrefix,
} from "../support/redis.ts";
import { typedMessage } from "../support/worker-crash.ts";
import { killLeaseHolder, type WorkerProcess } from "../support/workers.ts";

const SCRIPT = fileURLToPath(new URL("../support/approval-process.ts", import.meta.url));

const address: ConversationAddress = {
  platform: "crashy",
  workspace: "w",
  channel: "c",
  conversation: "ask",
};

/** Starts the approval process in `role`; a worker resolves once it takes work. */
function startProcess(
  env: Record<string, string>,
  waitFor: string | undefined,
): Promise<WorkerProcess & { stdout: () => string }> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: { ...envWithoutRedis(), ...redisEnv(), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let logs = "";
  let out = "";
  child.stderr?.on("data", (chunk) => {
    logs += String(chunk);
  });
  child.stdout?.on("data", (chunk) => {
    out += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  const process_ = {
    child,
    pid: child.pid as number,
    logs: () => logs,
    stdout: () => out,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
  if (waitFor === undefined) return Promise.resolve(process_);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${waitFor}" in 90 s:\n${logs}`)), 90_000);
    const check = () => {
      if (!logs.includes(waitFor)) return;
      clearTimeout(timer);
      resolve(process_);
    };
    child.stderr?.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${logs}`));
    });
  });
}

interface Setup {
  readonly prefix: string;
  readonly store: Store;
  readonly fake: FakeOpenAI;
  readonly workers: WorkerProcess[];
  readonly queue: ConversationQueue;
  readonly desk: ApprovalDesk;
  afterTool: () => number;
}

const redis = connectRedis({ maxRetriesPerRequest: null });
let current: Setup | undefined;
const others: WorkerProcess[] = [];

afterEach(async () => {
  const s = current;
  current = undefined;
  await Promise.all([...(s?.workers ?? []), ...others.splice(0)].map((w) => w.stop("SIGKILL")));
  await s?.queue.close();
  await s?.fake.close();
  if (s) await deleteKeysUnder(redis, s.prefix);
});

/** Two workers on a fresh prefix; the model calls deploy, then answers (the first answer request hangs with `hangModel`). */
async function setUp(hangModel = false): Promise<Setup> {
  const prefix = uniquePrefix("crash-ask");
  let afterTool = 0;
  const fake = await startFakeOpenAI({
    responder: (request: RecordedRequest) => {
      if (request.body.messages.at(-1).role === "user") {
        return {
          toolCalls: [{ id: "call_deploy", name: "deploy", arguments: { env: "prod" } }],
        };
      }
      afterTool++;
      return hangModel && afterTool === 1
        ? { content: "too late", delayMs: 60_000 }
        : { content: "Deployed." };
    },
  });
  const env = { SWITCHYARD_PREFIX: prefix, OPENAI_BASE_URL: fake.url, APPROVAL_ROLE: "worker" };
  const workers = await Promise.all([
    startProcess(env, "worker started"),
    startProcess(env, "worker started"),
  ]);
  const store = createStore(redis, { prefix });
  const queue = new ConversationQueue(new Inbox(redis, store.keys), { prefix });
  const desk = new ApprovalDesk({ store, queue, config: () => EMPTY_CONFIG });
  current = { prefix, store, fake, workers, queue, desk, afterTool: () => afterTool };
  return current;
}

const hang = (s: Setup, point: string) => redis.set(`${s.prefix}:test:hang:${point}`, "1");
const release = (s: Setup, point: string) => redis.del(`${s.prefix}:test:hang:${point}`);

/** The pid that reached `point` (and hangs there). */
async function reached(s: Setup, point: string): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const pid = await redis.get(`${s.prefix}:test:at:${point}`);
    if (pid) return Number(pid);
    if (Date.now() > deadline) throw new Error(`nobody reached ${point}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function kill(s: Setup, pid: number): Promise<void> {
  const victim = s.workers.find((w) => w.pid === pid) ?? others.find((w) => w.pid === pid);
  if (!victim) throw new Error(`no process ${pid}`);
  await victim.stop("SIGKILL");
}

interface Logged {
  kind: "post" | "edit";
  ref: string;
  text: string;
  controls?: number;
}

/** What reached the platform once the answer is out: the requests, the answers, the edits. */
async function settled(
  s: Setup,
): Promise<{ requests: Logged[]; answers: Logged[]; edits: Logged[] }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const log = (await redis.lrange(outboundLog(s.prefix), 0, -1)).map(
      (e) => JSON.parse(e) as Logged,
    );
    const answers = log.filter((e) => e.kind === "post" && !e.controls);
    const idle = (await s.store.turns.readCheckpoint(address)) === undefined;
    if ((answers.length > 0 && idle) || Date.now() > deadline) {
      // A moment more: a doubled post or edit would show now.
      await new Promise((r) => setTimeout(r, 1_500));
      const final = (await redis.lrange(outboundLog(s.prefix), 0, -1)).map(
        (e) => JSON.parse(e) as Logged,
      );
      return {
        requests: final.filter((e) => e.kind === "post" && (e.controls ?? 0) > 0),
        answers: final.filter((e) => e.kind === "post" && !e.controls),
        edits: final.filter((e) => e.kind === "edit"),
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The tool result the turn stored, once it is stored (the model is asked after it). */
async function storedToolResult(s: Setup): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const result = (await s.store.history.load(address)).find((m) => m.role === "tool");
    if (result !== undefined) return String(result.content);
    if (Date.now() > deadline)
      throw new Error("no tool result was stored before the model was asked");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const runs = async (s: Setup) => Number((await redis.get(`${s.prefix}:test:deploy-runs`)) ?? 0);

const approve = (id: string) => ({
  id,
  choice: "approve" as const,
  actor: { id: "crashy:u", isPlatformAdmin: false },
  name: "U",
  platform: "crashy",
});

/** One request, edited once to the approval, one answer, the tool run once. */
async function expectExactlyOnce(s: Setup): Promise<void> {
  const { requests, answers, edits } = await settled(s);
  expect(requests).toHaveLength(1);
  expect(edits.map((e) => [e.ref, e.text])).toEqual([[requests[0]?.ref, "Approved by U: deploy."]]);
  expect(answers.map((e) => e.text)).toEqual(["Deployed."]);
  expect(await runs(s)).toBe(1);
}

describe("approvals survive kill -9", () => {
  it("of the worker while it posts the request", async () => {
    const s = await setUp();
    await hang(s, "post");
    await s.queue.enqueue(typedMessage(address, "deploy prod"));
    const pid = await reached(s, "post");
    await release(s, "post");
    await kill(s, pid);
    const wait = await parkedWait(redis, s.store, address, 30_000);
    await s.desk.decide(approve(wait.id));
    await expectExactlyOnce(s);
  }, 120_000);

  it("of the worker after the request is posted, before its ref is stored", async () => {
    const s = await setUp();
    await hang(s, "posted");
    await s.queue.enqueue(typedMessage(address, "deploy prod"));
    const pid = await reached(s, "posted");
    await release(s, "posted");
    await kill(s, pid);
    const wait = await parkedWait(redis, s.store, address, 30_000);
    await s.desk.decide(approve(wait.id));
    await expectExactlyOnce(s);
  }, 120_000);

  it("of the worker while the approved tool runs: it is not run again", async () => {
    const s = await setUp();
    await s.queue.enqueue(typedMessage(address, "deploy prod"));
    const wait = await parkedWait(redis, s.store, address, 30_000);
    await hang(s, "tool");
    await s.desk.decide(approve(wait.id));
    const pid = await reached(s, "tool");
    await release(s, "tool");
    await kill(s, pid);
    await expectExactlyOnce(s);
    const history = await s.store.history.load(address);
    const result = history.find((m) => m.role === "tool");
    expect(result?.content).toMatch(/may have taken effect; not run again/);
  }, 120_000);

  it("of the worker before the next model request is answered", async () => {
    const s = await setUp(true);
    await s.queue.enqueue(typedMessage(address, "deploy prod"));
    const wait = await parkedWait(redis, s.store, address, 30_000);
    await s.desk.decide(approve(wait.id));
    const deadline = Date.now() + 30_000;
    while (s.afterTool() < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // The model is asked again only once the step's result is stored: what is stored is what the
    // resumed turn must use. It is the deploy's own result, unless on a loaded machine the 1.5 s
    // lease lapsed while the deploy ran and a second worker resumed the turn first: that run may
    // not run the approved call again, and stores that it may have taken effect (the design's
    // answer). Either way the deploy ran once, and the kill below changes nothing of it.
    const stored = await storedToolResult(s);
    expect(["deployed to prod", STOPPED_WHILE_RUNNING]).toContain(stored);
    await killLeaseHolder(redis, s.store.keys.conversation(address).lease, s.workers);
    await expectExactlyOnce(s);
    const history = await s.store.history.load(address);
    expect(history.find((m) => m.role === "tool")?.content).toBe(stored);
  }, 120_000);

  it("of the ingress between recording the decision and queuing the wake", async () => {
    const s = await setUp();
    await s.queue.enqueue(typedMessage(address, "deploy prod"));
    const wait = await parkedWait(redis, s.store, address, 30_000);
    await hang(s, "wake");
    const ingress = await startProcess(
      {
        SWITCHYARD_PREFIX: s.prefix,
        APPROVAL_ROLE: "ingress",
        APPROVAL_CLICK: JSON.stringify(approve(wait.id)),
      },
      undefined,
    );
    others.push(ingress);
    const pid = await reached(s, "wake");
    expect(pid).toBe(ingress.pid);
    await release(s, "wake");
    await kill(s, pid);
    expect((await s.store.approvals.read(address, wait.id)).decision?.verdict).toBe("approved");
    await expectExactlyOnce(s);
  }, 120_000);
});
