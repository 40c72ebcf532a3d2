import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisOutbox } from "../../src/channels/console/outbox.ts";
import { type ConversationAddress, conversationKey } from "../../src/core/agent/inbound.ts";
import { type FakeOpenAI, type RecordedRequest, startFakeOpenAI } from "../fakes/openai-server.ts";
import { until } from "../support/channels.ts";
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
        return afterTool === 1
          ? { content: "too late", delayMs: 60_000 }
          : { content: "Here is the report." };
      },
    });
    crash = await startCrashWorkers(fake, uniquePrefix("crash-files"), {
      SWITCHYARD_CONFIG: join(dir, "switchyard.yaml"),
    });
  }, 120_000);

  afterAll(async () => {
    await crash?.close();
    await fake?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("resumes without running the tool again and sends the answer and each file once", async () => {
    const { redis, prefix } = crash;
    await crash.enqueue(typedMessage(address, "make the quarterly report"));
    // The tool's step is stored once the model is asked for the answer.
    await until(() => (afterTool >= 1 ? true : undefined), 30_000);
    await crash.killLeaseHolder(address);
    const outbox = new RedisOutbox(redis, prefix, conversationKey);
    const mine = async () =>
      (await outbox.read("0", 100)).filter((e) => e.conversation === conversationKey(address));
    const deadline = Date.now() + 30_000;
    while ((await mine()).length < 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    // Anything sent twice would show up by now.
    await new Promise((r) => setTimeout(r, 1_000));
    const out = await mine();
    expect(out.map((e) => [e.kind, e.text.split(",")[0]])).toEqual([
      ["post", "Here is the report."],
      ["file", "[file: chart.png"],
      ["file", "[file: report.pdf"],
    ]);
    expect(Buffer.compare(readFileSync(out[1]?.path as string), png)).toBe(0);
    expect(Buffer.compare(readFileSync(out[2]?.path as string), pdf)).toBe(0);
    expect(readFileSync(join(dir, "runs.log"), "utf8")).toBe("ran\n");
    expect(asked).toBe(1);
    for (const entry of out) if (entry.path) rmSync(entry.path, { force: true });
  }, 90_000);
});
