import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { until } from "../support/channels.ts";
import { botPosts, type DiscordSetup, HUMAN, startDiscordBot } from "../support/discord.ts";
import { makePdf, makePng, oversizedReport, reportTool } from "../support/files.ts";

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const GENERAL = FAKE_DISCORD.channelId;

let setup: DiscordSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The multipart message posts the bot made: a payload_json beside its file parts. */
const uploads = (s: DiscordSetup) =>
  s.discord.calls.filter((c) => c.method === "POST" && /\/messages$/.test(c.path) && c.files);

/** Someone mentions the bot in #general over the gateway; resolves to their message's id. */
function ask(s: DiscordSetup, text: string): string {
  return s.discord.messageCreate({
    channelId: GENERAL,
    authorId: HUMAN,
    content: `<@${FAKE_DISCORD.botUserId}> ${text}`,
  }).id;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

describe("a tool's files reach a Discord channel", () => {
  it("posts the answer, then the chart and the report as replies with their bytes, once each", async () => {
    const png = await makePng(120, 80);
    const pdf = makePdf(["Quarterly report"]);
    const { tool, counted } = reportTool(() => [
      { name: "chart.png", bytes: png },
      { name: "report.pdf", bytes: pdf },
    ]);
    setup = await startDiscordBot({ tools: [tool] });
    const s = setup;
    s.pipe.fake.script(
      { toolCalls: [{ id: "c1", name: "make_report", arguments: {} }] },
      { content: "Here is the report." },
    );
    const asked = ask(s, "the report, please");
    await until(() => (botPosts(s.discord, GENERAL).length >= 3 ? true : undefined));
    await settle();

    const [text, chart, report, ...more] = botPosts(s.discord, GENERAL);
    expect(more).toHaveLength(0);
    expect(text?.content).toBe("Here is the report.");
    for (const posted of [text, chart, report]) {
      expect(posted?.message_reference).toMatchObject({ message_id: asked });
    }
    expect(chart?.attachments).toEqual([
      expect.objectContaining({ filename: "chart.png", content_type: "image/png" }),
    ]);
    expect(report?.attachments).toEqual([
      expect.objectContaining({ filename: "report.pdf", content_type: "application/pdf" }),
    ]);
    // One multipart request per file: the JSON payload beside files[0].
    const sent = uploads(s);
    expect(sent).toHaveLength(2);
    for (const call of sent) {
      expect(call.files?.map((f) => f.field)).toEqual(["files[0]"]);
      expect(call.body).toMatchObject({ message_reference: { message_id: asked } });
    }
    // What the person downloads is what the tool made.
    const served = async (posted: typeof chart) => {
      const [attachment] = (posted?.attachments ?? []) as { url: string }[];
      return new Uint8Array(await (await fetch(attachment?.url ?? "")).arrayBuffer());
    };
    expect(sha(await served(chart))).toBe(sha(png));
    expect(sha(await served(report))).toBe(sha(pdf));
    expect(counted.runs).toBe(1);
  }, 60_000);

  it("tells the model a file over its cap was not sent; the answer posts and nothing is uploaded", async () => {
    const { pdf, tool, config } = oversizedReport();
    expect(pdf.byteLength).toBeGreaterThan(100);
    setup = await startDiscordBot({
      tools: [tool],
      config,
      pipeline: { config, model: "fake-model" },
    });
    const s = setup;
    s.pipe.fake.script(
      { toolCalls: [{ id: "c1", name: "make_report", arguments: {} }] },
      { content: "The report was too big to send." },
    );
    ask(s, "the report, please");
    await until(() => (botPosts(s.discord, GENERAL).length >= 1 ? true : undefined));
    await settle();

    expect(botPosts(s.discord, GENERAL).map((m) => m.content)).toEqual([
      "The report was too big to send.",
    ]);
    const told = s.pipe.fake.requests[1]?.body.messages.findLast(
      (m: { role: string }) => m.role === "tool",
    )?.content;
    expect(told).toMatch(
      /report\.pdf \(application\/pdf, \d+ (bytes|KB)\) was not sent: it is over the 100 bytes cap \(attachments\.max_document_bytes\)/,
    );
    expect(uploads(s)).toHaveLength(0);
  }, 60_000);
});
