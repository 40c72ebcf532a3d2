import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/core/agent/messages.ts";
import type { ContentPart } from "../../src/core/attachments/content.ts";
import { withoutImages } from "../../src/core/attachments/unseen-images.ts";

const REASON = "the model small-model has no vision";

const partArb: fc.Arbitrary<ContentPart> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: fc.string({ maxLength: 20 }) }),
  fc.record({
    type: fc.constant("image_url" as const),
    image_url: fc.record({ url: fc.constant("data:image/png;base64,AAAA") }),
  }),
);
const messageArb: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.record({ role: fc.constant("user" as const), content: fc.string({ maxLength: 20 }) }),
  fc.record({ role: fc.constant("user" as const), content: fc.array(partArb, { maxLength: 5 }) }),
  fc.record({ role: fc.constant("assistant" as const), content: fc.string({ maxLength: 20 }) }),
);

describe("a turn on a model without vision", () => {
  it("replays an image sent earlier as its label and the note, in plain text", () => {
    const sent: ChatMessage = {
      role: "user",
      name: "Alice",
      content: [
        { type: "text", text: "what is this?" },
        { type: "text", text: "[image: photo.png (image/png, 230 bytes)]" },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
      ],
    };
    expect(withoutImages([sent], REASON)).toEqual([
      {
        role: "user",
        name: "Alice",
        content:
          "what is this?\n\n[image: photo.png (image/png, 230 bytes)]\n(an image was attached, but this bot cannot see images (the model small-model has no vision); say so if it matters)",
      },
    ]);
  });

  it("never sends an image part, keeps every text in order, and leaves messages without images as they are", () => {
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 6 }), (messages) => {
        const sent = withoutImages(messages, REASON);
        expect(JSON.stringify(sent)).not.toContain("image_url");
        expect(sent).toHaveLength(messages.length);
        messages.forEach((message, i) => {
          const out = sent[i] as ChatMessage;
          const hasImage =
            typeof message.content !== "string" &&
            message.content?.some((p) => p.type === "image_url");
          if (message.role !== "user" || typeof message.content === "string" || !hasImage) {
            expect(out).toBe(message);
            return;
          }
          const texts = message.content.flatMap((p) => (p.type === "text" ? [p.text] : []));
          let at = 0;
          for (const text of texts) {
            at = (out.content as string).indexOf(text, at);
            expect(at).toBeGreaterThanOrEqual(0);
            at += text.length;
          }
        });
        // The same messages always give the same bytes.
        expect(JSON.stringify(withoutImages(messages, REASON))).toBe(JSON.stringify(sent));
      }),
    );
  });
});
