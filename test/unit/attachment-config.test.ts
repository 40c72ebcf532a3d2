import { describe, expect, it } from "vitest";
import { attachmentNotice } from "../../src/core/attachments/capability-notice.ts";
import { modelVision } from "../../src/core/attachments/model-vision.ts";
import { capabilityStatus } from "../../src/core/availability/capabilities.ts";
import {
  DEFAULT_ATTACHMENTS,
  type ModelSection,
  type ModelsConfig,
} from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { Host } from "../../src/runtime/host.ts";
import {
  transcriptionCapability,
  VisionSettingError,
  visionDeclarations,
} from "../../src/tools/attachments/index.ts";

const FILE = "switchyard.yaml";

/** The `vision` of a turn on the bot's own model, as the host decides it from these settings. */
const ownVision = (
  model: Pick<ModelSection, "vision">,
  env: Record<string, string>,
  models?: ModelsConfig,
) => modelVision(undefined, visionDeclarations(model, env, models));

describe("the attachment settings", () => {
  it("vision comes from model.vision, and SWITCHYARD_MODEL_VISION wins; a typo there is an error", () => {
    const on = parseConfig("model:\n  vision: true\n", FILE).model;
    expect(ownVision(on, {})).toEqual({ available: true });
    expect(ownVision(on, { SWITCHYARD_MODEL_VISION: "false" })).toEqual({
      available: false,
      reason: "the model gpt-4.1-mini has no vision",
    });
    expect(ownVision({ vision: false }, { SWITCHYARD_MODEL_VISION: "yes" }).available).toBe(true);
    expect(() => ownVision({ vision: false }, { SWITCHYARD_MODEL_VISION: "ture" })).toThrow(
      VisionSettingError,
    );
    expect(() => parseConfig("model:\n  vision: maybe\n", FILE)).toThrow(
      'switchyard.yaml:2: model.vision: "maybe" is not on/off/true/false. Write vision: on or vision: off.',
    );
  });

  it("vision also comes from the bot's model listed under models: with capabilities { vision: true }", async () => {
    const config = parseConfig(
      [
        "models:",
        "  list:",
        "    - name: fake-model",
        "    - name: big-model",
        "      capabilities: { vision: true }",
      ].join("\n"),
      FILE,
    );
    const status = (env: Record<string, string>) => ownVision(config.model, env, config.models);
    expect(status({ SWITCHYARD_MODEL: "big-model" })).toEqual({ available: true });
    expect(status({ SWITCHYARD_MODEL: "fake-model" })).toEqual({
      available: false,
      reason: "the model fake-model has no vision",
    });
    // Unset, requests name the fallback model, which this list does not declare.
    expect(status({})).toEqual({
      available: false,
      reason: "the model gpt-4.1-mini has no vision",
    });
    expect(
      status({ SWITCHYARD_MODEL: "big-model", SWITCHYARD_MODEL_VISION: "false" }).available,
    ).toBe(false);
    // The host's capability floor is what the contract and the file reader read, per model.
    const host = new Host({ env: { SWITCHYARD_MODEL: "fake-model" }, config, builtins: [] });
    try {
      expect(capabilityStatus(host.capabilities(), "vision")).toEqual({
        available: false,
        reason: "the model fake-model has no vision",
      });
      expect(capabilityStatus(host.capabilities("big-model"), "vision")).toEqual({
        available: true,
      });
      // A config edit that declares the bot's model applies from the next turn.
      await host.reload(parseConfig("model:\n  vision: true\n", FILE));
      expect(capabilityStatus(host.capabilities(), "vision")).toEqual({ available: true });
      expect(capabilityStatus(host.capabilities("big-model"), "vision").available).toBe(false);
    } finally {
      await host.close();
    }
  });

  it("transcription needs a base_url and its key variable, and says which is missing", () => {
    const config = parseConfig(
      "transcription:\n  base_url: http://127.0.0.1:9000/v1\n  key_env: WHISPER_KEY\n",
      FILE,
    ).transcription;
    expect(config).toEqual({
      baseUrl: "http://127.0.0.1:9000/v1",
      model: "whisper-1",
      keyEnv: "WHISPER_KEY",
    });
    expect(transcriptionCapability(config, { WHISPER_KEY: "k" })).toEqual({ available: true });
    expect(transcriptionCapability(config, {})).toEqual({
      available: false,
      reason: "no transcription key: WHISPER_KEY is not set (transcription.key_env names it)",
    });
    expect(transcriptionCapability(parseConfig("", FILE).transcription, {}).available).toBe(false);
    expect(() => parseConfig("transcription:\n  base_url: whisper\n", FILE)).toThrow(
      "transcription.base_url: must be an http(s) URL such as https://api.openai.com/v1.",
    );
  });

  it("the caps default when left out and refuse what makes no sense, naming the key", () => {
    expect(parseConfig("", FILE).attachments).toEqual(DEFAULT_ATTACHMENTS);
    expect(
      parseConfig("attachments:\n  max_image_bytes: 5000000\n", FILE).attachments.maxImageBytes,
    ).toBe(5_000_000);
    expect(() => parseConfig("attachments:\n  image_max_side: 10\n", FILE)).toThrow(
      "attachments.image_max_side: must be at least 64 pixels; 1568 is the default.",
    );
    expect(() => parseConfig("attachments:\n  max_pages: 3\n", FILE)).toThrow(
      'unknown key "max_pages"',
    );
  });

  it("the document bounds default to what a real document never reaches, and are checked like the caps", () => {
    expect(DEFAULT_ATTACHMENTS).toMatchObject({
      maxUnzippedBytes: 50_000_000,
      maxZipEntries: 2_000,
      maxPdfPages: 500,
      maxDocumentChars: 2_000_000,
      parseMs: 20_000,
    });
    const set = parseConfig(
      "attachments:\n  max_unzipped_bytes: 10000000\n  max_zip_entries: 100\n  max_pdf_pages: 50\n  max_document_chars: 500000\n  parse_ms: 5000\n",
      FILE,
    ).attachments;
    expect([set.maxUnzippedBytes, set.maxZipEntries, set.maxPdfPages]).toEqual([
      10_000_000, 100, 50,
    ]);
    expect([set.maxDocumentChars, set.parseMs]).toEqual([500_000, 5_000]);
    expect(() => parseConfig("attachments:\n  max_pdf_pages: 0\n", FILE)).toThrow(
      "attachments.max_pdf_pages: must be at least 1 pages; 500 is the default.",
    );
    expect(() => parseConfig("attachments:\n  parse_ms: 1.5\n", FILE)).toThrow(
      "attachments.parse_ms: expected a whole number of milliseconds, found 1.5.",
    );
    expect(() => parseConfig("attachments:\n  max_unzipped_bytes: 300000000\n", FILE)).toThrow(
      "attachments.max_unzipped_bytes: must be at most 200000000 bytes; 50000000 is the default.",
    );
  });

  it("/tools says in one sentence what happens to images, voice notes and long documents", () => {
    expect(
      attachmentNotice({
        vision: { available: true },
        transcription: { available: false, reason: "no transcription endpoint." },
      }),
    ).toBe(
      'Attachments: vision on; transcription off (no transcription endpoint); read_attachment off (this host does not provide the "read_attachment" capability).',
    );
  });
});
