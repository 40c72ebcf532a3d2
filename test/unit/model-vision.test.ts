import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelVision, type VisionDeclarations } from "../../src/core/attachments/model-vision.ts";
import { parseConfig } from "../../src/platforms/config.ts";

const { models } = parseConfig(
  [
    "models:",
    "  list:",
    "    - name: gpt-4.1-mini",
    "    - name: gpt-4.1",
    "      capabilities: { vision: true }",
    "    - name: llama-3.3-70b",
    "      capabilities: { vision: false }",
  ].join("\n"),
  "switchyard.yaml",
);

/** The bot runs on gpt-4.1-mini, declared nothing, and lists a vision model to switch to. */
const TEXT_BOT: VisionDeclarations = { botModel: "gpt-4.1-mini", declared: false, models };

describe("which model sees images", () => {
  it("a turn on a listed vision model sees images; one on a text model is told why, naming it", () => {
    expect(modelVision("gpt-4.1", TEXT_BOT)).toEqual({ available: true });
    expect(modelVision("llama-3.3-70b", TEXT_BOT)).toEqual({
      available: false,
      reason: "the model llama-3.3-70b has no vision",
    });
    // No choice: the bot's own model, named in the reason.
    expect(modelVision(undefined, TEXT_BOT)).toEqual({
      available: false,
      reason: "the model gpt-4.1-mini has no vision",
    });
  });

  it("model.vision and SWITCHYARD_MODEL_VISION speak for the bot's own model, chosen or not", () => {
    const declared = { ...TEXT_BOT, declared: true };
    expect(modelVision(undefined, declared).available).toBe(true);
    expect(modelVision("gpt-4.1-mini", declared).available).toBe(true);
    expect(modelVision(undefined, { ...declared, override: false }).available).toBe(false);
    const visionBot = { ...TEXT_BOT, botModel: "gpt-4.1" };
    expect(modelVision(undefined, visionBot).available).toBe(true);
    expect(modelVision(undefined, { ...visionBot, override: false }).available).toBe(false);
  });

  it("a model other than the bot's own follows its models: entry alone, whatever the bot's model declares", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("gpt-4.1", "llama-3.3-70b", "unlisted-model"),
        fc.boolean(),
        fc.option(fc.boolean(), { nil: undefined }),
        (model, declared, override) => {
          const status = modelVision(model, { ...TEXT_BOT, declared, override });
          expect(status).toEqual(modelVision(model, TEXT_BOT));
          expect(status.available).toBe(model === "gpt-4.1");
        },
      ),
    );
  });
});
