import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ATTACHMENTS } from "../../src/core/config/index.ts";
import { conversationKey } from "../../src/core/conversation.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import { type OutboxEntry, RedisOutbox } from "../../src/platforms/terminal/outbox.ts";
import { makePdf, makePng, reportTool as reportToolOf } from "../support/files.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

let png: Buffer;
let bigPng: Buffer;
let chartOf = () => png;
const pdf = makePdf(["Quarterly report"]);
let dir: string;
let pipe: Pipeline | undefined;

beforeAll(async () => {
  png = await makePng(64, 48);
  // Noise does not compress: a PNG of some 12 KB.
  const noise = Buffer.from(
    Array.from({ length: 64 * 64 * 3 }, () => Math.floor(Math.random() * 256)),
  );
  bigPng = await sharp(noise, { raw: { width: 64, height: 64, channels: 3 } })
    .png()
    .toBuffer();
  dir = mkdtempSync(join(tmpdir(), "sy-tool-files-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
});

/** A tool that makes a chart and a report; declared types are wrong on purpose (the bytes decide). */
const { tool: reportTool, counted } = reportToolOf(() => [
  { name: "chart.png", bytes: chartOf(), type: "application/octet-stream" },
  { name: "report.pdf", bytes: pdf },
]);

async function entries(p: Pipeline, count: number): Promise<OutboxEntry[]> {
  const deadline = Date.now() + 15_000;
  let found: OutboxEntry[] = [];
  while (Date.now() < deadline) {
    found = (await p.app.outbox.read("0", 50)).filter((e) => e.kind !== "edit");
    if (found.length >= count) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`expected ${count} entries, got ${JSON.stringify(found.map((e) => e.text))}`);
}

/** The result text the model got for the tool call (the second request's last message). */
function toolResultText(p: Pipeline): string {
  const messages = p.fake.requests[1]?.body.messages ?? [];
  return messages.findLast((m: { role: string }) => m.role === "tool")?.content ?? "";
}

describe("files a tool returns go out with the answer", () => {
  it("uploads a PNG and a PDF once each, after the text, with their bytes and sniffed types", async () => {
    counted.runs = 0;
    pipe = await startPipeline({ tools: [reportTool], consoleFilesDir: dir });
    pipe.fake.script(
      { toolCalls: [{ id: "c1", name: "make_report", arguments: {} }] },
      { content: "Here is the report." },
    );
    await pipe.app.queue.enqueue(pipe.message("make the report"));
    const out = await entries(pipe, 3);
    expect(out.map((e) => e.kind)).toEqual(["post", "file", "file"]);
    expect(out[0]?.text).toBe("Here is the report.");
    const [chart, report] = out.slice(1) as [OutboxEntry, OutboxEntry];
    expect(chart.text).toMatch(/^\[file: chart\.png, image\/png, \d+ (bytes|KB) → /);
    expect(report.text).toMatch(/^\[file: report\.pdf, application\/pdf, /);
    expect(Buffer.compare(readFileSync(chart.path as string), png)).toBe(0);
    expect(Buffer.compare(readFileSync(report.path as string), pdf)).toBe(0);
    expect(counted.runs).toBe(1);
    // The model was told what will be sent; no bytes went into its request.
    const told = toolResultText(pipe);
    expect(told).toContain("chart.png (image/png,");
    expect(told).toContain("will be sent with your answer");
    expect(JSON.stringify(pipe.fake.requests[1]?.body)).not.toContain(png.toString("base64"));
    // The history holds the text, the checkpoint is gone with the turn, and nothing more arrives.
    await new Promise((r) => setTimeout(r, 300));
    expect(await entries(pipe, 3)).toHaveLength(3);
  }, 30_000);

  it("refuses a file over its kind's cap with a note naming the cap and the size; the turn answers", async () => {
    counted.runs = 0;
    pipe = await startPipeline({
      tools: [reportTool],
      consoleFilesDir: dir,
      // Images up to 1 KB: the chart is over; the PDF is under the document cap.
      config: () => ({
        ...EMPTY_CONFIG,
        attachments: { ...DEFAULT_ATTACHMENTS, maxImageBytes: 1_000 },
      }),
    });
    chartOf = () => bigPng;
    expect(bigPng.byteLength).toBeGreaterThan(1_000);
    pipe.fake.script(
      { toolCalls: [{ id: "c1", name: "make_report", arguments: {} }] },
      { content: "The report is attached; the chart was too big." },
    );
    await pipe.app.queue.enqueue(pipe.message("make the report"));
    const out = await entries(pipe, 2);
    expect(out.map((e) => e.kind)).toEqual(["post", "file"]);
    expect(out[1]?.text).toContain("report.pdf");
    const told = toolResultText(pipe);
    expect(told).toMatch(
      /chart\.png \(image\/png, \d+ (bytes|KB)\) was not sent: it is over the 1 KB cap \(attachments\.max_image_bytes\)/,
    );
    expect(told).toContain("report.pdf (application/pdf,");
    chartOf = () => png;
  }, 30_000);
});

describe("the console's upload", () => {
  it("writes the file into its folder and adds one entry per key, however often it is asked", async () => {
    const redis = connectRedis();
    const prefix = uniquePrefix("outbox-files");
    try {
      const outbox = new RedisOutbox(redis, prefix, conversationKey, dir);
      const target = { platform: "console", workspace: "w", channel: "c", conversation: "v" };
      const file = { name: "../../etc/report.pdf", type: "application/pdf", bytes: pdf };
      const first = await outbox.upload(target, file, { idempotencyKey: "t1-file-0" });
      const again = await outbox.upload(target, file, { idempotencyKey: "t1-file-0" });
      expect(again).toBe(first);
      const out = await outbox.read("0", 10);
      expect(out).toHaveLength(1);
      const path = out[0]?.path as string;
      // The tool's name cannot reach outside the folder.
      expect(path.startsWith(`${dir}/`)).toBe(true);
      expect(path.slice(dir.length + 1)).not.toContain("/");
      expect(out[0]?.text).toBe(
        `[file: ../../etc/report.pdf, application/pdf, ${pdf.byteLength} bytes → ${path}]`,
      );
      expect(Buffer.compare(readFileSync(path), pdf)).toBe(0);
    } finally {
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    }
  });
});
