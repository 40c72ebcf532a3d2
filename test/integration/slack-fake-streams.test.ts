import { describe, expect, it } from "vitest";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import { useFakeSlackClient } from "../support/slack-client.ts";

const client = useFakeSlackClient();

const THREAD = "1700000000.000001";
const platformError = (error: unknown) => (error as { data?: { error?: string } }).data?.error;

describe("the fake Slack's streaming methods, through the SDK's ChatStreamer", () => {
  it("streams a thread reply to its recipient, keeps it as one message, and refuses appends once stopped", async () => {
    const { fake, web } = await client();
    const streamer = web.chatStream({
      channel: "C0GENERAL",
      thread_ts: THREAD,
      recipient_user_id: "U0HUMAN",
      recipient_team_id: FAKE_SLACK.teamId,
      buffer_size: 1,
    });
    await streamer.append({ markdown_text: "Hello " });
    await streamer.append({ markdown_text: "**world**" });
    const stopped = await streamer.stop({
      markdown_text: "!",
      metadata: { event_type: "switchyard_reply", event_payload: { key: "t-0" } },
    });
    expect(stopped.ts).toBe(streamer.ts);
    expect(fake.messages.map((m) => [m.thread_ts, m.text])).toEqual([[THREAD, "Hello **world**!"]]);
    expect(fake.messages[0]?.metadata).toMatchObject({ event_payload: { key: "t-0" } });
    expect(fake.streams).toEqual([
      expect.objectContaining({ recipient: "U0HUMAN", appends: 1, stopped: true }),
    ]);
    const late = web.chat.appendStream({
      channel: "C0GENERAL",
      ts: streamer.ts as string,
      markdown_text: "more",
    });
    await expect(late.catch(platformError)).resolves.toBe("message_not_in_streaming_state");
    const again = web.chat.stopStream({ channel: "C0GENERAL", ts: streamer.ts as string });
    await expect(again.catch(platformError)).resolves.toBe("message_not_in_streaming_state");
  });

  it("answers invalid_arguments without a thread, or without a recipient outside a DM", async () => {
    const { fake, web } = await client();
    const noThread = web.apiCall("chat.startStream", { channel: "C0GENERAL", markdown_text: "x" });
    await expect(noThread.catch(platformError)).resolves.toBe("invalid_arguments");
    const noRecipient = web.chat.startStream({
      channel: "C0GENERAL",
      thread_ts: THREAD,
      markdown_text: "x",
    });
    await expect(noRecipient.catch(platformError)).resolves.toBe("invalid_arguments");
    const noText = web.chat.appendStream({ channel: "C0GENERAL", ts: THREAD } as never);
    await expect(noText.catch(platformError)).resolves.toBe("invalid_arguments");
    // In a DM the recipient is the DM's person: none is needed.
    const dm = await web.chat.startStream({
      channel: "D0HUGO",
      thread_ts: THREAD,
      markdown_text: "hi",
    });
    expect(dm.ts).toBeDefined();
    expect(fake.messages.map((m) => m.text)).toEqual(["hi"]);
  });
});
