import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { FEEDBACK_REPLIES } from "../../src/ingress/feedback-desk.ts";
import { runConsole } from "../../src/platforms/terminal/channel.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { channelRuntime, until } from "../support/channels.ts";
import { basicAuth, type ConsoleBot, startConsoleBot } from "../support/console.ts";
import { connectRedis } from "../support/redis.ts";

const CONVERSATION = "console:local:terminal:main";

/** The JSON the console page of the docs shows for a rated answer, joined from its wrapped lines. */
function documentedPayload(): Record<string, unknown> {
  const page = readFileSync(new URL("../../docs/operate/console.md", import.meta.url), "utf8");
  const block = /```text\n\$ curl[^\n]*\n[^\n]*\/feedback\n([\s\S]*?)```/.exec(page)?.[1] ?? "";
  return JSON.parse(block.replace(/\n/g, ""));
}

/** A value's keys and types, recursively: what a reader of the payload relies on. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shapeOf(v)]),
    );
  }
  return typeof value;
}
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** The terminal on a bot with its operator console: lines in, printed answers out. */
async function terminal(bot: ConsoleBot) {
  const runtime = channelRuntime(bot.pipe, []);
  const input = new PassThrough();
  const printed: string[] = [];
  const reader = connectRedis();
  const running = runConsole({
    input,
    print: (text) => printed.push(text.replace(/\n$/, "")),
    queue: bot.pipe.app.queue,
    idle: (address) => new Inbox(bot.pipe.app.redis, bot.pipe.app.store.keys).idle(address),
    outbox: bot.pipe.app.outbox,
    reader,
    sources: runtime.sources,
    gate: runtime.gate,
    feedback: bot.pipe.app.feedback,
  });
  closing.push(async () => {
    input.end();
    await running;
    reader.disconnect();
  });
  const say = async (line: string, expected: string) => {
    const before = printed.length;
    input.write(`${line}\n`);
    return until(() => printed.slice(before).find((text) => text === expected));
  };
  return { say, printed };
}

describe("feedback in the terminal and the operator console", () => {
  it("takes /good and /bad for the last answer, keeps what was wrong, and shows the votes with the turn", async () => {
    const bot = await startConsoleBot();
    closing.push(() => bot.close());
    bot.pipe.fake.script({ content: "The capital of Australia is Sydney." });
    const { say, printed } = await terminal(bot);
    await say("What is the capital of Australia?", "The capital of Australia is Sydney.");
    // The terminal shows no buttons: the answer is printed as it was.
    expect(printed).toEqual(["The capital of Australia is Sydney."]);

    await say("/good", FEEDBACK_REPLIES.up);
    await say("/good", FEEDBACK_REPLIES.same("up"));
    await say("/bad", FEEDBACK_REPLIES.ask);
    await say("It is Canberra.", FEEDBACK_REPLIES.reasonKept);
    // The reason never reached the model: one request, the question's.
    expect(bot.pipe.fake.requests).toHaveLength(1);

    const auth = { authorization: basicAuth() };
    const page = await (
      await fetch(`${bot.url}/conversations/${encodeURIComponent(CONVERSATION)}`, { headers: auth })
    ).text();
    expect(page).toContain("<th>Feedback</th>");
    expect(page).toMatch(/👍 0 · 👎 1/);
    expect(page).toContain('<q class="why">It is Canberra.</q>');

    const res = await fetch(
      `${bot.url}/conversations/${encodeURIComponent(CONVERSATION)}/feedback`,
      { headers: auth },
    );
    expect(res.status).toBe(200);
    const { ratings } = (await res.json()) as { ratings: Record<string, unknown>[] };
    expect(ratings).toEqual([
      {
        id: expect.stringMatching(/^[a-z0-9]{12}$/),
        turnId: expect.any(String),
        contractHash: expect.stringMatching(/^[0-9a-f]+$/),
        model: "default",
        promptTokens: expect.any(Number),
        cachedTokens: expect.any(Number),
        completionTokens: expect.any(Number),
        at: expect.any(Number),
        votes: [
          {
            voter: "console:console-user",
            vote: "down",
            at: expect.any(Number),
            name: "you",
            why: "It is Canberra.",
          },
        ],
      },
    ]);
    // The docs show this payload (docs/operate/console.md): the same fields, the same values but ids and times.
    const documented = documentedPayload();
    expect(shapeOf(documented)).toEqual(shapeOf({ ratings }));
    const [said] = documented.ratings as { votes: { at: number }[] }[];
    const [live] = ratings as { votes: { at: number }[] }[];
    const saidVote = said?.votes[0] ?? { at: 0 };
    expect(said?.votes).toEqual([{ ...live?.votes[0], at: saidVote.at }]);
    // The contract hash is the one the page shows for the conversation.
    expect(page).toContain(
      `<span class="hash" id="contract-hash">${ratings[0]?.contractHash}</span>`,
    );
  });

  it("answers /good with no answer to rate yet", async () => {
    const bot = await startConsoleBot();
    closing.push(() => bot.close());
    const { say } = await terminal(bot);
    await say("/good", FEEDBACK_REPLIES.nothing);
  });
});
