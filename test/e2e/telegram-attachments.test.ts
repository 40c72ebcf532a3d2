import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../src/testing/fakes/openai-server.ts";
import { ALICE, type TelegramSetup } from "../fakes/telegram-setup.ts";
import { useTelegramAttachmentBots } from "../support/attachments.ts";
import { until } from "../support/channels.ts";
import { makeDocx, makeOggOpus, makePdf, makePng } from "../support/files.ts";

/** A Telegram bot whose model sees images and whose voice notes go to a fake /audio/transcriptions. */
const start = useTelegramAttachmentBots();

/** Alice sends a message with a file; resolves to the model's request once the bot answered. */
async function send(
  s: TelegramSetup,
  extra: Record<string, unknown>,
  caption = "what is this?",
): Promise<{ request: RecordedRequest; answer: string }> {
  const before = s.telegram.botMessages(ALICE.id).length;
  s.telegram.userSends({ chat: ALICE.id, from: ALICE, caption, extra });
  const answer = await until(() => s.telegram.botMessages(ALICE.id).at(before)?.text);
  return { request: s.pipe.fake.requests.at(-1) as RecordedRequest, answer };
}

function lastUser(request: RecordedRequest): string | { type: string; [k: string]: unknown }[] {
  return request.body.messages.findLast((m: { role: string }) => m.role === "user").content;
}

const asText = (content: ReturnType<typeof lastUser>) =>
  typeof content === "string" ? content : content.map((p) => p.text ?? "").join("\n");

describe("files people send on Telegram reach the model", () => {
  it("a photo goes to a vision model as an image_url part, downscaled to the longest side", async () => {
    const s = await start({ vision: true, transcription: false });
    const png = await makePng(2000, 1000);
    const photo = s.telegram.addFile(png, "photo.png");
    const { request } = await send(s, {
      photo: [{ ...photo, width: 2000, height: 1000 }],
    });
    const content = lastUser(request);
    expect(Array.isArray(content)).toBe(true);
    const parts = content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(parts.map((p) => p.type)).toEqual(["text", "text", "image_url"]);
    expect(parts[0]?.text).toBe("what is this?");
    const url = parts[2]?.image_url?.url ?? "";
    expect(url).toMatch(/^data:image\/jpeg;base64,/);
    const meta = await sharp(Buffer.from(url.split(",")[1] ?? "", "base64")).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 512, 256]);
    // The file URL carries the bot token: it never reaches the model.
    expect(JSON.stringify(request.body)).not.toContain(s.telegram.token);
  });

  it("without vision the model is told an image came and that this bot cannot see images", async () => {
    const s = await start({ vision: false, transcription: false });
    const photo = s.telegram.addFile(await makePng(64, 64), "photo.png");
    const { request } = await send(s, { photo: [{ ...photo, width: 64, height: 64 }] });
    const content = lastUser(request);
    expect(typeof content).toBe("string");
    expect(content).toContain("cannot see images (the configured model has no vision)");
    expect(JSON.stringify(request.body)).not.toContain("image_url");
  });

  it("a PDF's text reaches the request, page by page", async () => {
    const s = await start({ vision: false, transcription: false });
    const pdf = makePdf(["Quarterly numbers are up", "Second page says hello"]);
    const doc = s.telegram.addFile(pdf, "report.pdf");
    const { request } = await send(s, {
      document: { ...doc, file_name: "report.pdf", mime_type: "application/pdf" },
    });
    const text = asText(lastUser(request));
    expect(text).toContain("[file: report.pdf (application/pdf, ");
    expect(text).toContain("--- page 1 ---\nQuarterly numbers are up");
    expect(text).toContain("--- page 2 ---\nSecond page says hello");
  });

  it("a Word document's text reaches the request, whatever type the platform declared", async () => {
    const s = await start({ vision: false, transcription: false });
    const docx = makeDocx(["Meeting notes", "Ship the DOCX reader on Friday."]);
    const doc = s.telegram.addFile(docx, "notes.docx");
    const { request } = await send(s, {
      document: { ...doc, file_name: "notes.docx", mime_type: "application/octet-stream" },
    });
    const text = asText(lastUser(request));
    expect(text).toContain(
      "[file: notes.docx (application/vnd.openxmlformats-officedocument.wordprocessingml.document, ",
    );
    expect(text).toContain("Meeting notes\n\nShip the DOCX reader on Friday.");
  });

  it("a voice note is transcribed from its OGG bytes and reaches the model marked as a transcript", async () => {
    const s = await start({ vision: false, transcription: true });
    const ogg = makeOggOpus();
    const voice = s.telegram.addFile(ogg, "voice.oga");
    const { request } = await send(
      s,
      { voice: { ...voice, duration: 1, mime_type: "audio/ogg" } },
      "",
    );
    expect(s.voice.transcriptions).toHaveLength(1);
    expect(Buffer.from(s.voice.transcriptions[0]?.bytes ?? []).equals(ogg)).toBe(true);
    expect(s.voice.transcriptions[0]?.model).toBe("whisper-1");
    expect(asText(lastUser(request))).toBe(
      `[voice note: voice-note.ogg (audio/ogg, ${ogg.byteLength} bytes), transcript follows]\n<untrusted source="transcript of voice-note.ogg">\na voice note of ${ogg.byteLength} bytes, heard\n</untrusted>`,
    );
  });

  it("without transcription a voice note is named and the person is to be told voice is not supported", async () => {
    const s = await start({ vision: false, transcription: false });
    const voice = s.telegram.addFile(makeOggOpus(), "voice.oga");
    const { request, answer } = await send(s, { voice: { ...voice, duration: 1 } }, "");
    expect(asText(lastUser(request))).toContain(
      "voice is not supported here (no transcription endpoint)",
    );
    expect(answer).toMatch(/^echo: /);
  });

  it("a file over its cap is not downloaded, the note says so, and the turn still answers", async () => {
    const s = await start({ vision: false, transcription: false });
    const big = s.telegram.addFile(Buffer.alloc(9_000, "a"), "big.txt");
    const { request, answer } = await send(s, {
      document: { ...big, file_name: "big.txt", mime_type: "text/plain" },
    });
    expect(asText(lastUser(request))).toContain(
      "not read: it is 9 KB, over the 4 KB limit (attachments.max_document_bytes); ask for a smaller file",
    );
    expect(s.telegram.fileDownloads).toEqual([]);
    expect(answer).toMatch(/^echo: what is this\?/);
  });
});
