import { afterEach } from "vitest";
import { type AttachmentsConfig, DEFAULT_ATTACHMENTS } from "../../src/core/config/index.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import type { SwitchyardOptions } from "../../src/runtime/app.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { openAITranscriber } from "../../src/tools/attachments/index.ts";
import { startTelegram, type TelegramSetup } from "../fakes/telegram-setup.ts";

/** Small caps so a test's files are over or under them without megabytes of bytes. */
export const TEST_LIMITS: AttachmentsConfig = {
  ...DEFAULT_ATTACHMENTS,
  imageMaxSide: 512,
  maxDocumentBytes: 4_000,
};

/**
 * Pipeline options for a bot whose model may see images and whose voice
 * notes may go to `voice` (a fake server's /audio/transcriptions).
 */
export function attachmentPipeline(
  voice: FakeOpenAI,
  powers: { vision: boolean; transcription: boolean },
  limits: AttachmentsConfig = TEST_LIMITS,
): Partial<SwitchyardOptions> {
  return {
    config: () => ({ ...EMPTY_CONFIG, attachments: limits }),
    capabilities: () => ({
      vision: powers.vision
        ? { available: true }
        : { available: false, reason: "the configured model has no vision" },
      transcription: powers.transcription
        ? { available: true }
        : { available: false, reason: "no transcription endpoint" },
    }),
    ...(powers.transcription
      ? {
          transcriber: openAITranscriber(
            { baseUrl: voice.url, model: "whisper-1", keyEnv: "KEY" },
            { KEY: "test" },
            10_000,
          ),
        }
      : {}),
  };
}

export type UserContent = string | { type: string; text?: string; image_url?: { url: string } }[];

/** The content of the last user message of a model request. */
export function lastUserContent(request: RecordedRequest | undefined): UserContent {
  return request?.body.messages.findLast((m: { role: string }) => m.role === "user").content;
}

/** A user message's content as text: its text parts joined. */
export function contentText(content: UserContent): string {
  return typeof content === "string" ? content : content.map((p) => p.text ?? "").join("\n");
}

/** The decoded bytes of each image_url part. */
export function imageParts(content: UserContent): Buffer[] {
  if (typeof content === "string") return [];
  return content
    .filter((p) => p.type === "image_url")
    .map((p) => Buffer.from(p.image_url?.url.split(",")[1] ?? "", "base64"));
}

/**
 * Starts Telegram bots whose files go through {@link attachmentPipeline},
 * each with its own fake transcription server (`voice`); every bot a test
 * started is stopped after it.
 */
export function useTelegramAttachmentBots() {
  let setups: TelegramSetup[] = [];
  let voices: FakeOpenAI[] = [];
  afterEach(async () => {
    for (const s of setups) await s.channel.stop();
    for (const s of setups) {
      await s.pipe.close().catch(() => {});
      await s.telegram.close();
    }
    for (const v of voices) await v.close();
    setups = [];
    voices = [];
  });
  return async (
    powers: { vision: boolean; transcription: boolean },
    limits?: AttachmentsConfig,
  ): Promise<TelegramSetup & { voice: FakeOpenAI }> => {
    const voice = await startFakeOpenAI();
    voices.push(voice);
    const setup = await startTelegram({ pipeline: attachmentPipeline(voice, powers, limits) });
    setups.push(setup);
    return { ...setup, voice };
  };
}
