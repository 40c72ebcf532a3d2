import { afterEach, describe, expect, it } from "vitest";
import { RESUMES_BEFORE_GIVING_UP } from "../support/chaos-fleet.ts";
import { CHAOS } from "../support/chaos-knobs.ts";
import { APOLOGY, CLEAN_VERDICT, verdict } from "../support/chaos-ledger.ts";
import { hasTag } from "../support/chaos-model.ts";
import { ChaosScenario } from "../support/chaos-scenario.ts";
import { isPartial, type SlackChaos, slackChaos } from "../support/chaos-slack.ts";
import { REDIS_URL } from "../support/redis.ts";

/** The round trip of the give-up scenario: its kills land inside an edit's round trip. */
const GIVEUP_DELAY_MS = 400;

let scenario: ChaosScenario | undefined;
let slack: SlackChaos | undefined;
afterEach(async () => {
  await scenario?.close();
  await slack?.close();
  scenario = undefined;
  slack = undefined;
});

describe("Slack under a kill -9 loop", () => {
  it("answers every message exactly once, in order, while workers die mid-stream and mid-post", async () => {
    slack = await slackChaos(CHAOS.platformDelayMs);
    scenario = new ChaosScenario(slack, {
      name: "slack-kill",
      redisUrl: REDIS_URL,
      messages: CHAOS.messages,
      maxKills: 8,
    });
    await scenario.start();
    const { counts, line } = await scenario.run();
    expect(counts.sent).toBe(CHAOS.messages);
    expect(verdict(counts), `${line}\n${counts.details.join("\n")}`).toEqual(CLEAN_VERDICT);
    // Answers in threads streamed with Slack's streaming API (the default), not post-and-edit.
    console.log(
      `slack-kill streams: ${slack.fake.streams.length} started, ${slack.fake.callsTo("chat.postMessage").length} chat.postMessage`,
    );
    expect(slack.fake.streams.length).toBeGreaterThan(0);
  }, 150_000);
});

describe("a turn killed again and again after its answer was delivered", () => {
  it("never posts the give-up apology next to the answer", async () => {
    // A slow Slack holds each redelivery of the answer long enough to kill its worker inside it.
    slack = await slackChaos(Math.max(CHAOS.platformDelayMs, GIVEUP_DELAY_MS));
    const fake = slack.fake;
    const platform = slack;
    const killed = new Set<unknown>();
    scenario = new ChaosScenario(slack, {
      name: "slack-giveup",
      redisUrl: REDIS_URL,
      messages: 1,
      perConversation: 1,
      // One more kill than the worker's resumes: the pickup after it is where it gives up.
      maxKills: RESUMES_BEFORE_GIVING_UP + 1,
      maxHitsPerConversation: RESUMES_BEFORE_GIVING_UP + 1,
      killAfterAnswers: true,
      killGapMs: [50, 150],
      lookMs: 12_000,
      moments: {
        // The turn's whole answer is on Slack (a post or edit carried out) and the worker
        // that sent it has not heard back: it cannot have finished the turn. Each resumed run
        // delivers again, so each run is caught here once.
        "after the answer was delivered": () => {
          const address = platform.address(0);
          // A post or edit shows its text; a stopped stream, the message it ended as.
          const shows = (c: { method: string; args: Record<string, unknown> }) =>
            c.method === "chat.stopStream"
              ? (fake.messages.find((m) => m.ts === c.args.ts)?.text ?? "")
              : String(c.args.text ?? "");
          const call = fake
            .inFlight()
            .find(
              (c) =>
                c.appliedAt !== undefined &&
                !killed.has(c) &&
                hasTag(shows(c)) &&
                !isPartial(shows(c)),
            );
          if (!address || !call) return undefined;
          killed.add(call);
          return { address, kind: "after delivery" };
        },
      },
    });
    await scenario.start();
    const { counts, line, kills } = await scenario.run();
    expect(kills.length, line).toBe(RESUMES_BEFORE_GIVING_UP + 1);
    expect(
      fake.messages.filter((m) => APOLOGY.test(m.text)).map((m) => m.text),
      line,
    ).toEqual([]);
    expect(verdict(counts), `${line}\n${counts.details.join("\n")}`).toEqual(CLEAN_VERDICT);
  }, 150_000);
});
