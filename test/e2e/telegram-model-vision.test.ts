import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/platforms/config.ts";
import { telegramAddress } from "../../src/platforms/telegram/normalize.ts";
import { Host } from "../../src/runtime/host.ts";
import type { RecordedRequest } from "../../src/testing/fakes/openai-server.ts";
import { ALICE, type TelegramSetup, TOOLS, useTelegram } from "../fakes/telegram-setup.ts";
import {
  contentText,
  imageParts,
  lastUserContent,
  type UserContent,
} from "../support/attachments.ts";
import { until } from "../support/channels.ts";
import { makePng } from "../support/files.ts";

/**
 * The bot's own model (fake-model) is a text model; the config lists a
 * vision model and another text model people may switch to with `/model`.
 */
const CONFIG = parseConfig(
  [
    "models:",
    "  list:",
    "    - name: fake-model",
    "    - name: big-model",
    "      capabilities: { vision: true }",
    "    - name: small-model",
    "access:",
    "  dm: open",
  ].join("\n"),
  "test.yaml",
);

const telegrams = useTelegram();
let hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts) await host.close();
  hosts = [];
});

/** A Telegram bot whose worker and commands read `vision` from a real Host, per model. */
async function start(): Promise<TelegramSetup> {
  const host = new Host({ env: { SWITCHYARD_MODEL: "fake-model" }, config: CONFIG, builtins: [] });
  hosts.push(host);
  return telegrams.start({
    tools: TOOLS,
    config: () => CONFIG,
    pipeline: { capabilities: host.capabilities },
  });
}

/** What the bot says next in Alice's chat after she types `text`. */
async function reply(s: TelegramSetup, text: string, pattern: RegExp): Promise<string> {
  const before = s.telegram.botMessages(ALICE.id).length;
  s.telegram.userSends({ chat: ALICE.id, from: ALICE, text });
  return until(() =>
    s.telegram
      .botMessages(ALICE.id)
      .slice(before)
      .map((m) => m.text ?? "")
      .find((t) => pattern.test(t)),
  );
}

/** Alice sends the photo; resolves to the model's request once the bot answered. */
async function sendPhoto(s: TelegramSetup, png: Buffer): Promise<RecordedRequest> {
  const asked = s.pipe.fake.requests.length;
  const answers = () => s.telegram.botMessages(ALICE.id).filter((m) => m.text?.startsWith("echo:"));
  const answered = answers().length;
  const photo = s.telegram.addFile(png, "photo.png");
  s.telegram.userSends({
    chat: ALICE.id,
    from: ALICE,
    caption: "what is this?",
    extra: { photo: [{ ...photo, width: 64, height: 64 }] },
  });
  await until(() => answers().at(answered));
  return s.pipe.fake.requests[asked] as RecordedRequest;
}

describe("vision follows the model the conversation runs on", () => {
  it("a text model gets the note, /model to a vision model brings the image part, a switch away takes it off again", async () => {
    const s = await start();
    const png = await makePng(64, 64);

    // On the bot's own text model: the note, naming the model, and no image part.
    const onText = await sendPhoto(s, png);
    expect(contentText(lastUserContent(onText))).toContain(
      "cannot see images (the model fake-model has no vision)",
    );
    expect(JSON.stringify(onText.body)).not.toContain("image_url");
    const offList = await reply(s, "/tools", /Attachments:/);
    expect(offList).toContain("vision off (the model fake-model has no vision)");

    expect(await reply(s, "/model big-model", /uses big-model/)).toBe(
      "This conversation uses big-model from my next turn; it can see images.",
    );
    const onVision = await sendPhoto(s, png);
    expect(onVision.body.model).toBe("big-model");
    const [image] = imageParts(lastUserContent(onVision));
    expect(image).toBeDefined();
    const meta = await sharp(image).metadata();
    expect([meta.width, meta.height]).toEqual([64, 64]);
    expect(contentText(lastUserContent(onVision))).not.toContain("cannot see images");
    expect(await reply(s, "/tools", /Attachments:/)).toContain("Attachments: vision on;");

    expect(await reply(s, "/model small-model", /uses small-model/)).toBe(
      "This conversation uses small-model from my next turn; it cannot see images (the model small-model has no vision).",
    );
    const awayAgain = await sendPhoto(s, png);
    expect(awayAgain.body.model).toBe("small-model");
    expect(JSON.stringify(awayAgain.body)).not.toContain("image_url");
    expect(contentText(lastUserContent(awayAgain))).toContain(
      "cannot see images (the model small-model has no vision)",
    );
    // The photo sent to the vision model replays as its label and the note, not as an image part...
    const sent = awayAgain.body.messages.filter((m: { role: string }) => m.role === "user");
    expect(sent[1].content).toMatch(
      /^what is this\?\n\n\[image: photo-[^\]]+\]\n\(an image was attached, but this bot cannot see images \(the model small-model has no vision\); say so if it matters\)$/,
    );
    // ...while the stored history keeps it, for a later turn on a vision model.
    const stored = await s.pipe.app.store.history.read(
      telegramAddress(ALICE.id, undefined, "topic"),
    );
    expect(imageParts(stored.messages[2]?.content as UserContent)).toHaveLength(1);
    expect(await reply(s, "/tools", /Attachments:/)).toContain(
      "vision off (the model small-model has no vision)",
    );
  });
});
