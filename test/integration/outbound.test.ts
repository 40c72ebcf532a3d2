import { afterEach, describe, expect, it } from "vitest";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";
import { RecordingOutbound } from "../support/recording-outbound.ts";

let pipe: Pipeline | undefined;
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
});

const chat = { platform: "chat", workspace: "T1", channel: "C1", conversation: "C1-thread" };

describe("delivery through a channel's outbound", () => {
  it("streams an answer by editing one message at most once per interval, ending with the full text", async () => {
    const outbound = new RecordingOutbound();
    pipe = await startPipeline({ outbounds: { chat: outbound }, streamEditMs: 300 });
    const answer = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    pipe.fake.script({ content: answer, chunkDelayMs: 40 });
    await pipe.app.queue.enqueue(
      pipe.message("stream please", { ...chat, thread: "1700.1", messageRef: "1700.1" }),
    );
    const deadline = Date.now() + 15_000;
    while (!outbound.visible().includes(answer) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(outbound.visible()).toEqual([answer]);
    const posts = outbound.calls.filter((c) => c.kind === "post");
    const edits = outbound.calls.filter((c) => c.kind === "edit");
    expect(posts).toHaveLength(1);
    expect(edits.length).toBeGreaterThan(1);
    const live = [posts[0], ...edits.slice(0, -1)].map((c) => c?.at ?? 0);
    for (let i = 1; i < live.length; i++)
      expect((live[i] ?? 0) - (live[i - 1] ?? 0)).toBeGreaterThanOrEqual(290);
    expect(posts[0]?.target).toMatchObject({ thread: "1700.1", replyTo: "1700.1" });
    expect(outbound.calls.some((c) => c.kind === "typing")).toBe(true);
  });

  it("splits a long answer at the platform's limit without breaking a code block", async () => {
    const outbound = new RecordingOutbound(500, false);
    pipe = await startPipeline({ outbounds: { chat: outbound } });
    const code = `\`\`\`ts\n${Array.from({ length: 60 }, (_, i) => `const v${i} = ${i};`).join("\n")}\n\`\`\``;
    const answer = `Here is the code.\n\n${code}\n\nThat is all.`;
    pipe.fake.script({ content: answer });
    await pipe.app.queue.enqueue(pipe.message("code please", chat));
    const deadline = Date.now() + 15_000;
    while (!outbound.visible().join("").includes("That is all.") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const parts = outbound.visible();
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(500);
      expect((part.match(/```/g) ?? []).length % 2).toBe(0);
    }
    const rejoined = parts.join("\n").replace(/\n```\n```ts\n/g, "\n");
    for (let i = 0; i < 60; i++) expect(rejoined).toContain(`const v${i} = ${i};`);
  });
});
