import { describe, expect, it } from "vitest";
import { useFakeSlackClient } from "../support/slack-client.ts";

const client = useFakeSlackClient();

/** Slack's error code for a call the WebClient rejected. */
const codeOf = (call: Promise<unknown>) =>
  call.then(
    () => "ok",
    (error: { data?: { error?: string } }) => error.data?.error,
  );

describe("the fake Slack's assistant.threads methods, driven by the real WebClient", () => {
  it("sets a pane thread's suggested prompts, title and status as Slack keeps them", async () => {
    const { fake, web } = await client();
    const pane = fake.openAssistantThread("U0HUMAN", "D0HUMAN");
    const where = { channel_id: "D0HUMAN", thread_ts: pane.thread_ts };
    await web.assistant.threads.setSuggestedPrompts({
      ...where,
      title: "Try asking",
      prompts: [{ title: "Catch me up", message: "What happened today?" }],
    });
    await web.assistant.threads.setTitle({ ...where, title: "Launch plan" });
    await web.assistant.threads.setStatus({ ...where, status: "is thinking…" });
    expect(fake.assistantThreads.get(`D0HUMAN:${pane.thread_ts}`)).toEqual({
      channel: "D0HUMAN",
      thread_ts: pane.thread_ts,
      user: "U0HUMAN",
      promptsTitle: "Try asking",
      prompts: [{ title: "Catch me up", message: "What happened today?" }],
      title: "Launch plan",
      status: "is thinking…",
    });
    // The WebClient sends the prompts as JSON inside the form, as Slack receives them.
    expect(fake.callsTo("assistant.threads.setSuggestedPrompts")[0]?.args.prompts).toEqual([
      { title: "Catch me up", message: "What happened today?" },
    ]);
    // The pane's root message is in the DM, and the thread hangs off it.
    expect(fake.messages.find((m) => m.ts === pane.thread_ts)?.channel).toBe("D0HUMAN");
  });

  it("answers Slack's errors: a channel that is no DM, a thread the pane never opened, bad prompts", async () => {
    const { fake, web } = await client();
    const pane = fake.openAssistantThread("U0HUMAN", "D0HUMAN");
    const prompts = [{ title: "a", message: "b" }];
    expect(
      await codeOf(
        web.assistant.threads.setSuggestedPrompts({
          channel_id: "C0GENERAL",
          thread_ts: pane.thread_ts,
          prompts,
        }),
      ),
    ).toBe("channel_not_found");
    expect(
      await codeOf(
        web.assistant.threads.setTitle({
          channel_id: "D0HUMAN",
          thread_ts: "1700000099.000100",
          title: "x",
        }),
      ),
    ).toBe("invalid_thread_ts");
    const five = Array.from({ length: 5 }, (_, i) => ({ title: `t${i}`, message: `m${i}` }));
    expect(
      await codeOf(
        web.assistant.threads.setSuggestedPrompts({
          channel_id: "D0HUMAN",
          thread_ts: pane.thread_ts,
          prompts: five,
        }),
      ),
    ).toBe("invalid_arguments");
    expect(
      await codeOf(
        web.assistant.threads.setSuggestedPrompts({
          channel_id: "D0HUMAN",
          thread_ts: pane.thread_ts,
          prompts: [{ title: "", message: "b" }],
        }),
      ),
    ).toBe("invalid_arguments");
    expect(
      await codeOf(
        web.assistant.threads.setTitle({
          channel_id: "D0HUMAN",
          thread_ts: pane.thread_ts,
          title: "",
        }),
      ),
    ).toBe("invalid_arguments");
    expect(fake.assistantThreads.get(`D0HUMAN:${pane.thread_ts}`)?.prompts).toBeUndefined();
  });
});
