import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConversationAddress, conversationKey } from "../../src/core/conversation.ts";
import { RedisOutbox } from "../../src/platforms/terminal/outbox.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  type ScriptedReply,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { makePdf, makePng } from "../support/files.ts";
import { uniquePrefix } from "../support/redis.ts";
import { type CrashWorkers, startCrashWorkers, typedMessage } from "../support/worker-crash.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const address: ConversationAddress = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "tool-files",
};

/**
 * A worker dies after the step whose tool made two files is stored, while
 * it waits for the model's answer. The survivor resumes the turn: it does
 * not run the tool again (the files are in the checkpoint, their bytes in
 * Redis) and sends the answer and each file once.
 */
describe("a worker killed after a tool made files, before the answer went out", () => {
  let fake: FakeOpenAI;
  let crash: CrashWorkers;
  let dir: string;
  let png: Buffer;
  const pdf = makePdf(["Quarterly report"]);
  let asked = 0;
  let afterTool = 0;
  /** What the model answers after the tool result, by how often it was asked. */
  let afterModel: (n: number) => ScriptedReply | Promise<ScriptedReply> = () => ({
    content: "Here is the report.",
  });

  beforeAll(async () => {
    png = await makePng(40, 30);
    // Under the checkout, so the plugin finds zod and Switchyard's source.
    dir = mkdtempSync(join(ROOT, "test", ".tmp-crash-files-"));
    writeFileSync(join(dir, "chart.png"), png);
    writeFileSync(join(dir, "report.pdf"), pdf);
    const src = (path: string) => JSON.stringify(join(ROOT, "src", "core", "tools", path));
    writeFileSync(
      join(dir, "report-plugin.mjs"),
      `import { appendFileSync, readFileSync } from "node:fs";
import { z } from "zod";
import { defineTool } from ${src("tool.ts")};
import { toolResult } from ${src("tool-result.ts")};
const here = ${JSON.stringify(dir)};
export const tools = [
  defineTool({
    id: "make_report",
    description: "Makes the quarterly report and its chart.",
    parameters: z.object({}),
    execute: () => {
      appendFileSync(here + "/runs.log", "ran\\n");
      return toolResult("Made the report.", [
        { name: "chart.png", bytes: readFileSync(here + "/chart.png") },
        { name: "report.pdf", bytes: readFileSync(here + "/report.pdf") },
      ]);
    },
  }),
];
`,
    );
    writeFileSync(join(dir, "switchyard.yaml"), "plugins: [./report-plugin.mjs]\n");
    fake = await startFakeOpenAI({
      responder: (request: RecordedRequest) => {
        if (request.body.messages.at(-1).role === "user") {
          asked++;
          return { toolCalls: [{ id: "call_report", name: "make_report", arguments: {} }] };
        }
        afterTool++;
        return afterModel(afterTool);
      },
    });
    // The console writes files under the OS's temp folder: the workers' is the test's own.
    // Three workers: each test kills one, and a survivor must be left for the second.
    crash = await startCrashWorkers(
      fake,
      uniquePrefix("crash-files"),
      {
        SWITCHYARD_CONFIG: join(dir, "switchyard.yaml"),
        TMPDIR: join(dir, "tmp"),
        // The plugin imports the source (.ts) by path, which only the source run (tsx) loads.
        SWITCHYARD_FROM_DIST: "0",
      },
      3,
    );
  }, 120_000);

  afterAll(async () => {
    await crash?.close();
    await fake?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("resumes without running the tool again and sends the answer and each file once", async () => {
    const here = { ...address, conversation: "before-answer" };
    afterModel = (n) =>
      n === 1 ? { content: "too late", delayMs: 60_000 } : { content: "Here is the report." };
    await crash.enqueue(typedMessage(here, "make the quarterly report"));
    // The model is asked for the answer, and the tool's step is stored (the checkpoint moves
    // from step 1, where the turn began, to 2): the turn writes a
    // step beside the next request (it waits for its writes only before an effect), so on a
    // loaded machine the request can come first, and a kill between them runs the tool again.
    await waitFor(
      async () =>
        afterTool >= 1 && ((await crash.store.turns.readCheckpoint(here))?.step ?? 0) >= 2,
    );
    await crash.killLeaseHolder(here);
    const out = await delivered(here);
    expectAnswerAndFilesOnce(out);
    expect(asked).toBe(1);
  }, 90_000);

  it("resumes a delivery cut short mid-upload: the text and each file arrive once", async () => {
    const here = { ...address, conversation: "mid-upload" };
    asked = 0;
    afterTool = 0;
    rmSync(join(dir, "runs.log"), { force: true });
    let fifo = "";
    // Before answering, a FIFO takes the first file's place: the upload blocks opening it.
    afterModel = async () => {
      const checkpoint = await crash.store.turns.readCheckpoint(here);
      const folder = join(dir, "tmp", "switchyard-files");
      mkdirSync(folder, { recursive: true });
      fifo = join(folder, `${checkpoint?.turnId}-file-0-chart.png`);
      execFileSync("mkfifo", [fifo]);
      return { content: "Here is the report." };
    };
    await crash.enqueue(typedMessage(here, "make the quarterly report"));
    await waitFor(async () => (await entriesOf(here)).length >= 1);
    // The text is out and the upload is stuck on the FIFO for as long as the worker lives.
    await new Promise((r) => setTimeout(r, 500));
    expect((await entriesOf(here)).map((e) => e.kind)).toEqual(["post"]);
    await crash.killLeaseHolder(here);
    unlinkSync(fifo);
    const out = await delivered(here);
    expectAnswerAndFilesOnce(out);
    expect(afterTool).toBe(1);
  }, 90_000);

  /** The answer, then the chart and the report with the tool's bytes, each once; the tool ran once. */
  function expectAnswerAndFilesOnce(out: Awaited<ReturnType<typeof delivered>>) {
    expect(out.map((e) => [e.kind, e.text.split(",")[0]])).toEqual([
      ["post", "Here is the report."],
      ["file", "[file: chart.png"],
      ["file", "[file: report.pdf"],
    ]);
    expect(Buffer.compare(readFileSync(out[1]?.path as string), png)).toBe(0);
    expect(Buffer.compare(readFileSync(out[2]?.path as string), pdf)).toBe(0);
    expect(readFileSync(join(dir, "runs.log"), "utf8")).toBe("ran\n");
  }

  async function entriesOf(where: ConversationAddress) {
    const outbox = new RedisOutbox(crash.redis, crash.prefix, conversationKey);
    return (await outbox.read("0", 100)).filter((e) => e.conversation === conversationKey(where));
  }

  /** The conversation's entries once three arrived, and a second more for any sent twice. */
  async function delivered(where: ConversationAddress) {
    await waitFor(async () => (await entriesOf(where)).length >= 3);
    await new Promise((r) => setTimeout(r, 1_000));
    return entriesOf(where);
  }
});

async function waitFor(probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}
