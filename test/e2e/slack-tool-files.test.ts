import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import { appMentionEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import { makePdf, makePng, oversizedReport, reportTool } from "../support/files.ts";
import { SLACK_SECRET, settle, useSlackHarness, visibleIn } from "../support/slack-harness.ts";

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const start = useSlackHarness();

/** Someone mentions the bot in #general; resolves to the thread the answer goes in. */
async function ask(events: string, text: string): Promise<string> {
  const mention = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> ${text}` });
  const sent = await sendEvent(events, SLACK_SECRET, mention);
  expect(sent.status).toBe(200);
  return mention.ts as string;
}

describe("a tool's files reach a Slack thread", () => {
  it("posts the answer, then shares the chart and the report in its thread with their bytes, once each", async () => {
    const png = await makePng(120, 80);
    const pdf = makePdf(["Quarterly report"]);
    const { tool, counted } = reportTool(() => [
      { name: "chart.png", bytes: png },
      { name: "report.pdf", bytes: pdf },
    ]);
    const { pipe, slack, events } = await start({ tools: [tool] });
    pipe.fake.script(
      { toolCalls: [{ id: "c1", name: "make_report", arguments: {} }] },
      { content: "Here is the report." },
    );
    const thread = await ask(events[0] as string, "the report, please");
    const shares = () => slack.messages.filter((m) => m.thread_ts === thread && m.files);
    await until(() => (shares().length >= 2 ? true : undefined));
    await settle();

    // The answer first, then one message per file, all in the mention's thread.
    const inThread = slack.messages.filter((m) => m.thread_ts === thread && m.bot_id);
    expect(inThread.map((m) => m.text || m.files?.map((f) => f.name).join())).toEqual([
      "Here is the report.",
      "chart.png",
      "report.pdf",
    ]);
    expect(visibleIn(slack, thread)[0]).toBe("Here is the report.");
    // Each file went by the upload URL and was completed into the thread, once.
    expect(slack.callsTo("files.getUploadURLExternal")).toHaveLength(2);
    const completes = slack.callsTo("files.completeUploadExternal");
    expect(completes).toHaveLength(2);
    for (const c of completes) {
      expect(c.args).toMatchObject({ channel_id: "C0GENERAL", thread_ts: thread });
    }
    // What the person downloads is what the tool made.
    const download = async (url: string) => {
      const got = await fetch(url, { headers: { authorization: `Bearer ${FAKE_SLACK.botToken}` } });
      return new Uint8Array(await got.arrayBuffer());
    };
    const [chart, report] = shares().map((m) => slack.files.get(m.files?.[0]?.id ?? ""));
    expect(chart).toMatchObject({ name: "chart.png", mimetype: "image/png" });
    expect(report).toMatchObject({ name: "report.pdf", mimetype: "application/pdf" });
    expect(sha(await download(chart?.url_private_download ?? ""))).toBe(sha(png));
    expect(sha(await download(report?.url_private_download ?? ""))).toBe(sha(pdf));
    expect(counted.runs).toBe(1);
  }, 60_000);

  it("tells the model a file over its cap was not sent; the answer posts and nothing is uploaded", async () => {
    const { pdf, tool, config } = oversizedReport();
    expect(pdf.byteLength).toBeGreaterThan(100);
    const { pipe, slack, events } = await start({ tools: [tool], config });
    pipe.fake.script(
      { toolCalls: [{ id: "c1", name: "make_report", arguments: {} }] },
      { content: "The report was too big to send." },
    );
    const thread = await ask(events[0] as string, "the report, please");
    await until(() => (visibleIn(slack, thread).length >= 1 ? true : undefined));
    await settle();

    expect(visibleIn(slack, thread)).toEqual(["The report was too big to send."]);
    const told = pipe.fake.requests[1]?.body.messages.findLast(
      (m: { role: string }) => m.role === "tool",
    )?.content;
    expect(told).toMatch(
      /report\.pdf \(application\/pdf, \d+ (bytes|KB)\) was not sent: it is over the 100 bytes cap \(attachments\.max_document_bytes\)/,
    );
    expect(slack.callsTo("files.getUploadURLExternal")).toHaveLength(0);
    expect(slack.callsTo("files.completeUploadExternal")).toHaveLength(0);
    expect(slack.files.size).toBe(0);
  }, 60_000);
});
