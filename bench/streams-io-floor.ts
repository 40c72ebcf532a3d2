/**
 * The streams bench's I/O floor, run in a process of its own (`fork`ed by
 * {@link ioFloor}): N bare turns at once, each only moving the bytes a
 * worker's turn must move, with Node's own `fetch` and nothing else. It asks
 * the fake model for the same streamed answer and reads it to the end, then
 * makes as many Telegram calls as the measured run made a turn, each with a
 * body the size of theirs. It uses undici's `request` on a keep-alive pool,
 * the leanest HTTP client Node has (its `fetch` costs more a call). Its CPU
 * per turn is what the transport alone costs on this machine at this load:
 * no engine on Node spends less, so the worker's CPU per turn is read
 * against it.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";

const pool = new Agent({ keepAliveTimeout: 30_000 });

/** What the parent hands the child. */
interface FloorJob {
  readonly modelUrl: string;
  /** One bot method URL every call goes to (its body is what costs, not its meaning). */
  readonly callUrl: string;
  readonly turns: number;
  /** The bytes of each Telegram call a turn makes, in order. */
  readonly callBytes: readonly number[];
  /** The conversation number each turn asks the model about (the fake answers by it). */
  readonly firstConversation: number;
}

/**
 * Runs the floor in a child process and resolves with its CPU per turn, in
 * ms. The child is started and warmed up before the measured window, which
 * covers the turns only.
 */
export async function ioFloor(job: FloorJob): Promise<number> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`the I/O floor process exited (${code})`)));
      child.on("message", (message: { cpuMsPerTurn?: number; error?: string }) => {
        if (message.error) reject(new Error(`the I/O floor process failed: ${message.error}`));
        else if (message.cpuMsPerTurn !== undefined) resolve(message.cpuMsPerTurn);
      });
      child.send(job);
    });
  } finally {
    child.kill();
  }
}

async function bareTurn(job: FloorJob, conversation: number): Promise<void> {
  const response = await request(job.modelUrl, {
    method: "POST",
    dispatcher: pool,
    headers: { "content-type": "application/json", authorization: "Bearer bench" },
    body: JSON.stringify({
      model: "fake-model",
      stream: true,
      messages: [{ role: "user", content: `conversation ${conversation}: how does it work?` }],
    }),
  });
  if (response.statusCode !== 200)
    throw new Error(`the fake model answered ${response.statusCode}`);
  for await (const _chunk of response.body) {
    // Only the bytes' arrival costs here.
  }
  for (const bytes of job.callBytes) {
    const call = await request(job.callUrl, {
      method: "POST",
      dispatcher: pool,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: conversation, text: "x".repeat(Math.max(0, bytes - 40)) }),
    });
    await call.body.arrayBuffer();
  }
}

async function runJob(job: FloorJob): Promise<number> {
  // Warm up: the fetch machinery, the connections and the JIT, on a few turns.
  await Promise.all(Array.from({ length: 4 }, (_, i) => bareTurn(job, job.firstConversation + i)));
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: job.turns }, (_, i) => bareTurn(job, job.firstConversation + i)),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / job.turns;
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once("message", (job: FloorJob) => {
    runJob(job).then(
      (cpuMsPerTurn) => process.send?.({ cpuMsPerTurn }),
      (error: unknown) => process.send?.({ error: String(error) }),
    );
  });
}
