import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { DeliveryTarget, Outbound, OutgoingFile } from "../../src/ports/outbound.ts";
import { UploadRefusedError } from "../../src/ports/upload-refused.ts";
import { makePdf, makePng, reportTool as reportToolOf } from "../support/files.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

/**
 * A platform that takes files, deduping posts and uploads by idempotency
 * key as a platform with a nonce does, and counting every call: a resumed
 * delivery that skips what went out makes no second call at all.
 */
class FileOutbound implements Outbound {
  readonly maxLength = 2_000;
  readonly canEdit = false;
  readonly posts: { key: string; text: string }[] = [];
  readonly uploads: { key: string; file: OutgoingFile }[] = [];
  readonly calls: string[] = [];
  readonly #byKey = new Map<string, string>();
  /** Set per test: what an upload under a key throws (once, or every time). */
  fail: (key: string, attempt: number) => Error | undefined = () => undefined;

  async post(_t: DeliveryTarget, text: string, { idempotencyKey }: { idempotencyKey: string }) {
    this.calls.push(`post ${idempotencyKey}`);
    const seen = this.#byKey.get(idempotencyKey);
    if (seen) return seen;
    this.posts.push({ key: idempotencyKey, text });
    return this.#ref(idempotencyKey);
  }

  async upload(
    _t: DeliveryTarget,
    file: OutgoingFile,
    { idempotencyKey }: { idempotencyKey: string },
  ) {
    this.calls.push(`upload ${idempotencyKey}`);
    const attempt = this.calls.filter((c) => c === `upload ${idempotencyKey}`).length;
    const error = this.fail(idempotencyKey, attempt);
    if (error) throw error;
    const seen = this.#byKey.get(idempotencyKey);
    if (seen) return seen;
    this.uploads.push({ key: idempotencyKey, file });
    return this.#ref(idempotencyKey);
  }

  async edit() {}
  async typing() {}

  #ref(key: string): string {
    const ref = `m${this.#byKey.size + 1}`;
    this.#byKey.set(key, ref);
    return ref;
  }
}

/** The same, for a platform that takes no files from this bot. */
class TextOnlyOutbound implements Outbound {
  readonly maxLength = 2_000;
  readonly canEdit = false;
  readonly posts: string[] = [];
  async post(_t: DeliveryTarget, text: string) {
    this.posts.push(text);
    return `m${this.posts.length}`;
  }
  async edit() {}
  async typing() {}
}

let png: Buffer;
const pdf = makePdf(["Report"]);
let pipe: Pipeline | undefined;

beforeAll(async () => {
  png = await makePng(32, 32);
});
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
});

const { tool: reportTool, counted } = reportToolOf(() => [
  { name: "chart.png", bytes: png },
  { name: "report.pdf", bytes: pdf },
]);

async function askForReport(outbound: Outbound): Promise<Pipeline> {
  counted.runs = 0;
  const p = await startPipeline({ tools: [reportTool], outbounds: { test: outbound } });
  p.fake.script(
    { toolCalls: [{ id: "c1", name: "make_report", arguments: {} }] },
    { content: "Here is the report." },
  );
  await p.app.queue.enqueue(p.message("the report, please", { platform: "test" }));
  return p;
}

async function until(probe: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

const settle = () => new Promise((r) => setTimeout(r, 500));

describe("delivering a tool's files", () => {
  it("retries an upload that failed for now, without resending what went out or running the tool again", async () => {
    const outbound = new FileOutbound();
    outbound.fail = (key, attempt) =>
      key.endsWith("-file-1") && attempt === 1
        ? Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })
        : undefined;
    pipe = await askForReport(outbound);
    await until(() => outbound.uploads.length === 2);
    await settle();
    const turn = outbound.posts[0]?.key.replace(/-0$/, "");
    expect(outbound.posts.map((p) => p.text)).toEqual(["Here is the report."]);
    // The text part and the first file were recorded before the failure: each was sent once.
    expect(outbound.calls).toEqual([
      `post ${turn}-0`,
      `upload ${turn}-file-0`,
      `upload ${turn}-file-1`,
      `upload ${turn}-file-1`,
    ]);
    expect(outbound.uploads.map((u) => [u.file.name, u.file.type])).toEqual([
      ["chart.png", "image/png"],
      ["report.pdf", "application/pdf"],
    ]);
    expect(Buffer.compare(Buffer.from(outbound.uploads[0]?.file.bytes ?? []), png)).toBe(0);
    expect(Buffer.compare(Buffer.from(outbound.uploads[1]?.file.bytes ?? []), pdf)).toBe(0);
    expect(counted.runs).toBe(1);
  }, 30_000);

  it("sends the files with the answer when a turn that keeps failing is given up", async () => {
    const outbound = new FileOutbound();
    // The run and its three resumes fail on the first file; the give-up delivers it.
    outbound.fail = (key, attempt) =>
      key.endsWith("-file-0") && attempt <= 4
        ? Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })
        : undefined;
    pipe = await askForReport(outbound);
    await until(() => outbound.uploads.length === 2, 30_000);
    await settle();
    expect(outbound.posts.map((p) => p.text)).toEqual(["Here is the report."]);
    expect(outbound.uploads.map((u) => u.file.name)).toEqual(["chart.png", "report.pdf"]);
    expect(outbound.calls.filter((c) => c.endsWith("-file-0"))).toHaveLength(5);
    expect(counted.runs).toBe(1);
  }, 45_000);

  it("posts one note for a file the platform refuses, sends the rest, and the turn ends", async () => {
    const outbound = new FileOutbound();
    outbound.fail = (key) =>
      key.endsWith("-file-0")
        ? new UploadRefusedError("Test", "chart.png", "no PNG here", "Send a PDF.", undefined)
        : undefined;
    pipe = await askForReport(outbound);
    await until(() => outbound.uploads.length === 1);
    await settle();
    expect(outbound.posts.map((p) => p.text)).toEqual([
      "Here is the report.",
      '_(Test refused the file "chart.png": no PNG here. Send a PDF.)_',
    ]);
    expect(outbound.uploads.map((u) => u.file.name)).toEqual(["report.pdf"]);
    // The conversation moves on: the next message gets its answer.
    pipe.fake.script({ content: "Anything else?" });
    await pipe.app.queue.enqueue(pipe.message("thanks", { platform: "test" }));
    await until(() => outbound.posts.length === 3);
    expect(outbound.posts[2]?.text).toBe("Anything else?");
  }, 30_000);

  it("says in the answer that the files could not be sent where the platform takes none", async () => {
    const outbound = new TextOnlyOutbound();
    pipe = await askForReport(outbound);
    await until(() => outbound.posts.length === 1);
    await settle();
    expect(outbound.posts).toEqual([
      "Here is the report.\n\n_(The files chart.png, report.pdf could not be sent here: this platform takes no files from this bot.)_",
    ]);
  }, 30_000);
});
