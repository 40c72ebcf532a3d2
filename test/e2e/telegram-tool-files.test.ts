import { createHash } from "node:crypto";
import { Api } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { ALICE, startTelegram, type TelegramSetup } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { makePdf, makePng, reportTool } from "../support/files.ts";

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let setup: TelegramSetup | undefined;
afterEach(async () => {
  await setup?.channel.stop();
  await setup?.pipe.close();
  await setup?.telegram.close();
  setup = undefined;
});

describe("a tool's files reach a Telegram chat", () => {
  it("sends the answer, then the chart as a photo and the report as a document, once each", async () => {
    const png = await makePng(120, 80);
    const pdf = makePdf(["Quarterly report"]);
    const { tool: report, counted } = reportTool(() => [
      { name: "chart.png", bytes: png },
      { name: "report.pdf", bytes: pdf },
    ]);
    setup = await startTelegram({ tools: [report] });
    const { telegram, pipe } = setup;
    pipe.fake.script(
      { toolCalls: [{ id: "c1", name: "make_report", arguments: {} }] },
      { content: "Here is the report." },
    );
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "the report, please" });
    await until(() => (telegram.botMessages(ALICE.id).length >= 3 ? true : undefined));
    await new Promise((r) => setTimeout(r, 500));
    const [text, photo, document, ...more] = telegram.botMessages(ALICE.id);
    expect(more).toHaveLength(0);
    expect(text?.text).toBe("Here is the report.");
    expect(photo?.photo).toEqual([expect.objectContaining({ width: 120, height: 80 })]);
    expect(document?.document).toMatchObject({
      file_name: "report.pdf",
      mime_type: "application/pdf",
    });
    const api = new Api(telegram.token, { apiRoot: telegram.apiRoot });
    const download = async (fileId: string) => {
      const file = await api.getFile(fileId);
      const url = `${telegram.apiRoot}/file/bot${telegram.token}/${file.file_path}`;
      return new Uint8Array(await (await fetch(url)).arrayBuffer());
    };
    expect(sha(await download(photo?.photo?.[0]?.file_id ?? ""))).toBe(sha(png));
    expect(sha(await download(document?.document?.file_id ?? ""))).toBe(sha(pdf));
    expect(counted.runs).toBe(1);
  }, 60_000);
});
