import { describe, expect, it } from "vitest";
import { DEFAULT_ATTACHMENTS } from "../../src/core/config/index.ts";
import type { Responder } from "../../src/testing/fakes/openai-server.ts";
import { ALICE, BOB, type TelegramSetup } from "../fakes/telegram-setup.ts";
import { useTelegramAttachmentBots } from "../support/attachments.ts";
import { until } from "../support/channels.ts";
import { manyPagesPdf, nestedDocx, zipBombDocx } from "../support/document-bombs.ts";

/**
 * Document bombs sent to a real bot (grammY on the fake Bot API, Redis,
 * BullMQ, the worker in this process) with the default attachment bounds:
 * each is answered once, with a note saying why it was not (all) read,
 * within the per-file budget, while another person's message is answered
 * in under two seconds. A parser on the main thread fails all of it: the
 * event loop stalls for the whole parse, or the heap runs out.
 */

const BUDGET_MS = DEFAULT_ATTACHMENTS.parseMs;

const startBot = useTelegramAttachmentBots();

/** Answers with the last line of the last user message: a file's note, or what was written. */
const lastLine: Responder = (request) => {
  const messages: { role?: string; content?: unknown }[] = request.body?.messages ?? [];
  const content = messages.findLast((m) => m.role === "user")?.content;
  const text = typeof content === "string" ? content : JSON.stringify(content);
  return { content: `echo: ${text.split("\n").at(-1)}` };
};

async function start(): Promise<TelegramSetup> {
  const setup = await startBot({ vision: false, transcription: false }, DEFAULT_ATTACHMENTS);
  setup.pipe.fake.setResponder(lastLine);
  setup.telegram.addChat({ id: BOB.id, type: "private", title: "Bob" });
  return setup;
}

/** The bot's answers in a private chat so far. */
const answers = (s: TelegramSetup, chat: number) => s.telegram.botMessages(chat).map((m) => m.text);

/**
 * Alice sends `bytes` as `name`; once the bot has downloaded it (it is
 * being read), Bob writes. Resolves to Alice's answer and how long it and
 * Bob's took, and checks that Alice got exactly one answer for it: her
 * next message, answered in order after it, is the barrier.
 */
async function bombWithBystander(s: TelegramSetup, bytes: Buffer, name: string, mime: string) {
  const file = s.telegram.addFile(bytes, name);
  const downloads = s.telegram.fileDownloads.length;
  const sent = performance.now();
  s.telegram.userSends({
    chat: ALICE.id,
    from: ALICE,
    caption: "what does it say?",
    extra: { document: { ...file, file_name: name, mime_type: mime } },
  });
  await until(() => (s.telegram.fileDownloads.length > downloads ? true : undefined), 30_000);
  const bobSent = performance.now();
  s.telegram.userSends({ chat: BOB.id, from: BOB, text: "are you there?" });
  await until(() => answers(s, BOB.id).at(0), 30_000);
  const bobMs = performance.now() - bobSent;
  const answer = await until(() => answers(s, ALICE.id).at(0), BUDGET_MS + 30_000);
  const aliceMs = performance.now() - sent;
  s.telegram.userSends({ chat: ALICE.id, from: ALICE, text: "thanks" });
  await until(() => answers(s, ALICE.id).at(1), 30_000);
  expect(answers(s, ALICE.id)).toEqual([answer, "echo: thanks"]);
  expect(answers(s, BOB.id)).toEqual(["echo: are you there?"]);
  // The figures, for a reader of the run (bench/document-bombs.ts measures memory too).
  process.stdout.write(
    `${name}: answered in ${Math.round(aliceMs)} ms; Bob meanwhile in ${Math.round(bobMs)} ms\n`,
  );
  return { answer, aliceMs, bobMs };
}

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

describe("document bombs are answered with a note, and nobody else waits", () => {
  it("a DOCX of 2.5 MB that unzips to 300 MB is refused from its directory", async () => {
    const s = await start();
    const { answer, aliceMs, bobMs } = await bombWithBystander(
      s,
      zipBombDocx(),
      "report.docx",
      DOCX,
    );
    expect(answer).toBe(
      "echo: (it could not be read: it expands past 50.0 MB unzipped (attachments.max_unzipped_bytes))",
    );
    expect(aliceMs).toBeLessThan(BUDGET_MS);
    expect(bobMs).toBeLessThan(2_000);
  }, 120_000);

  it("the same bomb with a directory that declares 1 KB stops at 50 MB while inflating", async () => {
    const s = await start();
    const bomb = zipBombDocx(300_000_000, true);
    const { answer, aliceMs, bobMs } = await bombWithBystander(s, bomb, "report.docx", DOCX);
    expect(answer).toBe(
      "echo: (it could not be read: it expands past 50.0 MB unzipped (attachments.max_unzipped_bytes))",
    );
    expect(aliceMs).toBeLessThan(BUDGET_MS);
    expect(bobMs).toBeLessThan(2_000);
  }, 120_000);

  it("a PDF of 100,000 pages is read to its first 500, and the note says so", async () => {
    const s = await start();
    const pdf = manyPagesPdf(100_000);
    const { answer, aliceMs, bobMs } = await bombWithBystander(
      s,
      pdf,
      "scan.pdf",
      "application/pdf",
    );
    // The page bound cuts it at 500; on a machine too busy to read 500 pages in the budget,
    // the soft deadline cuts it sooner. Either way the note says how many of how many.
    const read =
      /^echo: \(the first ([\d,]+) of 100,000 pages were read \(attachments\.(\w+)\)/.exec(answer);
    expect(read?.[2] === "max_pdf_pages" ? read[1] : read?.[2]).toMatch(/^(500|parse_ms)$/);
    expect(aliceMs).toBeLessThan(BUDGET_MS);
    expect(bobMs).toBeLessThan(2_000);
  }, 120_000);

  it("a DOCX nested 100,000 elements deep is named as too deep to read", async () => {
    const s = await start();
    const { answer, aliceMs, bobMs } = await bombWithBystander(s, nestedDocx(), "deep.docx", DOCX);
    expect(answer).toBe("echo: (it could not be read: it is nested too deeply to read)");
    expect(aliceMs).toBeLessThan(BUDGET_MS);
    expect(bobMs).toBeLessThan(2_000);
  }, 120_000);
});
