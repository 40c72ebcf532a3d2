import { createRequire } from "node:module";
import { Readable } from "node:stream";
import fc from "fast-check";
import { InputFile } from "grammy";
import { describe, expect, it } from "vitest";
import { multipartParams } from "../../src/testing/fakes/telegram-uploads.ts";

// grammY's own multipart writer, the bytes its Api sends when a call carries an InputFile
// (not in grammY's exports map, so by path).
const { createFormDataPayload } = createRequire(import.meta.url)(
  "../../node_modules/grammy/out/core/payload.js",
) as {
  createFormDataPayload(
    payload: Record<string, unknown>,
    onError: (error: unknown) => void,
  ): { headers: Record<string, string>; body: AsyncIterable<Uint8Array> };
};

async function encode(payload: Record<string, unknown>) {
  const { headers, body } = createFormDataPayload(payload, (error) => {
    throw error;
  });
  const chunks: Buffer[] = [];
  for await (const chunk of Readable.from(body)) chunks.push(Buffer.from(chunk));
  return { contentType: headers["content-type"] as string, raw: Buffer.concat(chunks) };
}

/** A file name as the Telegram upload sends it (upload.ts quotes it; these never reach a name). */
const fileName = fc.string({ minLength: 1, maxLength: 40 }).filter((n) => !/["\\\r\n]/.test(n));

describe("the fake Bot API's reading of grammY's multipart bodies", () => {
  it("gives back every text field as sent and the file's bytes and name under its field", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer(),
        // Text that looks like JSON stays text: only JSON-typed fields are parsed.
        fc.oneof(fc.string(), fc.json()),
        fileName,
        fc.uint8Array({ minLength: 1, maxLength: 3000 }),
        async (chat, caption, name, bytes) => {
          const { contentType, raw } = await encode({
            chat_id: chat,
            caption,
            reply_parameters: { message_id: 7, allow_sending_without_reply: true },
            document: new InputFile(bytes, `"${name}"`),
          });
          const params = await multipartParams(contentType, raw);
          expect(params.chat_id).toBe(String(chat));
          expect(params.caption ?? "").toBe(caption);
          expect(params.reply_parameters).toEqual({
            message_id: 7,
            allow_sending_without_reply: true,
          });
          expect(params.document.filename).toBe(name);
          expect(Buffer.compare(params.document.bytes, Buffer.from(bytes))).toBe(0);
        },
      ),
      { numRuns: 150 },
    );
  });
});
