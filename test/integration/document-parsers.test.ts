import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_ATTACHMENTS } from "../../src/core/config/index.ts";
import { DocumentParsers } from "../../src/tools/attachments/document-parsers.ts";
import { manyPagesPdf, zipBombDocx } from "../support/document-bombs.ts";
import { makeDocx } from "../support/files.ts";

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const running = new AbortController().signal;

/**
 * The parser threads themselves (real worker_threads, loaded as the worker
 * loads them): what each way of losing a thread says, and that the next
 * document gets a fresh thread and is read as usual.
 */
describe("the document parser threads", () => {
  const parsers = new DocumentParsers({ size: 1 });
  afterAll(() => parsers.close());

  it("stop a reader past parse_ms, say so, and read the next document on a fresh thread", async () => {
    const slow = await parsers.parse(
      { bytes: manyPagesPdf(100_000), type: "application/pdf" },
      { ...DEFAULT_ATTACHMENTS, parseMs: 100 },
      running,
    );
    expect(slow).toEqual({
      ok: false,
      problem: "reading it took longer than 100 ms",
      bound: false,
    });
    const next = await parsers.parse(
      { bytes: makeDocx(["after"]), type: DOCX },
      DEFAULT_ATTACHMENTS,
      running,
    );
    expect(next).toEqual({ ok: true, text: "after" });
  }, 60_000);

  it("end a reader whose heap runs out, say how much it had, and the process goes on", async () => {
    const small = new DocumentParsers({
      limits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    });
    try {
      // 20 MB of XML within the unzipped bound: mammoth's tree of it outgrows a 64 MB heap.
      const read = await small.parse(
        { bytes: zipBombDocx(20_000_000), type: DOCX },
        DEFAULT_ATTACHMENTS,
        running,
      );
      expect(read).toEqual({
        ok: false,
        problem: "reading it needs more than 64 MB of memory",
        bound: false,
      });
    } finally {
      await small.close();
    }
  }, 60_000);

  it("stop reading when the turn is stopped", async () => {
    const stop = new AbortController();
    const reading = parsers.parse(
      { bytes: manyPagesPdf(100_000), type: "application/pdf" },
      DEFAULT_ATTACHMENTS,
      stop.signal,
    );
    stop.abort();
    expect(await reading).toEqual({ ok: false, problem: "the turn was stopped", bound: false });
  }, 60_000);
});
