import fc from "fast-check";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/core/budget/estimate.ts";
import {
  dataUrlImageSize,
  imageTokens,
  messageTokens,
} from "../../src/core/budget/image-tokens.ts";
import { canonicalJson } from "../../src/core/tools/canonical-json.ts";

describe("image parts cost what OpenAI's formula says", () => {
  it("matches the documented examples: 1024 square 765, 2048 x 4096 1105, low detail 85", () => {
    expect(imageTokens(1024, 1024)).toBe(765);
    expect(imageTokens(2048, 4096)).toBe(1105);
    expect(imageTokens(4000, 3000, "low")).toBe(85);
    expect(imageTokens(100, 100)).toBe(255);
  });

  it("never costs less than one tile nor more than the 2048-pixel cap allows", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20_000 }),
        fc.integer({ min: 1, max: 20_000 }),
        (w, h) => {
          const cost = imageTokens(w, h);
          expect(cost).toBeGreaterThanOrEqual(255);
          // 768 x 2048 at most after scaling: 2 x 4 tiles.
          expect(cost).toBeLessThanOrEqual(85 + 170 * 8);
        },
      ),
    );
  });

  it("reads the size of PNG, JPEG, WebP and GIF data URLs from their headers", async () => {
    for (const format of ["png", "jpeg", "webp", "gif"] as const) {
      const bytes = await sharp({
        create: { width: 300, height: 170, channels: 3, background: "#c33" },
      })
        .toFormat(format)
        .toBuffer();
      const url = `data:image/${format};base64,${bytes.toString("base64")}`;
      expect([format, dataUrlImageSize(url)]).toEqual([format, { width: 300, height: 170 }]);
    }
    expect(dataUrlImageSize("data:image/png;base64,AAAA")).toBeUndefined();
  });

  it("counts a stored message's image by the formula, not by its base64 bytes", async () => {
    const bytes = await sharp({
      create: { width: 1024, height: 1024, channels: 3, background: "#3a7" },
      // Noise, so the JPEG is large, as a photo is.
    })
      .composite([
        {
          input: Buffer.from(Array.from({ length: 256 * 256 * 3 }, (_, i) => (i * 7919) % 256)),
          raw: { width: 256, height: 256, channels: 3 },
          tile: true,
        },
      ])
      .jpeg()
      .toBuffer();
    const url = `data:image/jpeg;base64,${bytes.toString("base64")}`;
    const raw = canonicalJson({
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url } },
      ],
    });
    expect(estimateTokens(raw)).toBeGreaterThan(10_000);
    const cost = messageTokens(raw);
    expect(cost).toBeGreaterThan(765);
    expect(cost).toBeLessThan(765 + 60);
  });
});
