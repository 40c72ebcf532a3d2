import { afterEach, describe, expect, it } from "vitest";
import type { FakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { until } from "../support/channels.ts";

/** Delivers the same platform event once more, as the platform's retry or a gateway replay would. */
export type Replay = () => Promise<void>;

/**
 * One platform's bot on its fake (or the in-memory chat), seen by a person
 * in one conversation who administers nothing: what every channel must do
 * is written against this, once.
 */
export interface ContractDriver {
  readonly model: FakeOpenAI;
  /** The longest message the platform takes (the channel's `outbound.maxLength`). */
  readonly maxLength: number;
  /**
   * The person writes a line to the bot, as they would on this platform (a
   * mention where one is needed; a command typed as the platform lets one
   * be typed). Resolves once the platform has delivered it.
   */
  send(text: string): Promise<Replay>;
  /** The bot's messages in the conversation, oldest first, each as last edited. */
  said(): string[];
  /** How many times the bot edited its messages in the conversation. */
  edits(): number;
  close(): Promise<void>;
}

export interface DriverSetup {
  /** Streams answers by edits at most this often; 0 posts each answer once. */
  readonly streamEditMs: number;
}

export type StartContractDriver = (setup: DriverSetup) => Promise<ContractDriver>;

const settle = (ms = 500) => new Promise((resolve) => setTimeout(resolve, ms));

const saysSoon = (driver: ContractDriver, pattern: RegExp) =>
  until(() => driver.said().find((text) => pattern.test(text)));

/**
 * The contract every channel passes, Slack's, Discord's and Telegram's on
 * their fakes as much as a fourth platform's: real Redis, real BullMQ, the
 * fake model. `name` names the platform in the test titles.
 */
export function channelContract(name: string, start: StartContractDriver): void {
  describe(`the channel contract on ${name}`, () => {
    let driver: ContractDriver | undefined;
    afterEach(async () => {
      await driver?.close();
      driver = undefined;
    });
    const open = async (streamEditMs = 0) => {
      driver = await start({ streamEditMs });
      return driver;
    };

    it("answers a message once when the platform delivers the same event again", async () => {
      const d = await open();
      d.model.script({ content: "answered once" }, { content: "the next answer" });
      const replay = await d.send("only once please");
      await replay();
      await saysSoon(d, /^answered once$/);
      await replay();
      // Time for a replay taken as new to become a turn of its own, before the next message.
      await settle();
      await d.send("and now?");
      await saysSoon(d, /^the next answer$/);
      await settle();
      expect(d.said()).toEqual(["answered once", "the next answer"]);
      expect(d.model.requests).toHaveLength(2);
      // The conversation holds the message once: no replay was collected into a turn either.
      const asked = (d.model.requests[1]?.body.messages ?? []).filter(
        (m: { role: string; content: unknown }) =>
          m.role === "user" && String(m.content).includes("only once please"),
      );
      expect(asked).toHaveLength(1);
    });

    it("answers /tools and /skills with their lists once each, replays included, without asking the model", async () => {
      const d = await open();
      const replay = await d.send("/tools");
      expect(await saysSoon(d, /tools available/)).toMatch(/2 of 2 tools available/);
      await replay();
      await d.send("/skills");
      await saysSoon(d, /skills available/);
      await settle();
      expect(d.said().filter((text) => /tools available/.test(text))).toHaveLength(1);
      expect(d.model.requests).toHaveLength(0);
    });

    it("refuses a change to the workspace scope from someone who is not an admin, and changes nothing", async () => {
      const d = await open();
      await d.send("/tools off lookup workspace");
      const refusal = await saysSoon(d, /^Only /);
      expect(refusal).toMatch(
        /^Only workspace admins or the bot's configured admins can change the workspace scope\./,
      );
      await d.send("/tools");
      await saysSoon(d, /tools available/);
      expect(d.said().filter((text) => /tools available/.test(text))).toEqual([
        expect.stringMatching(/2 of 2 tools available/),
      ]);
      expect(d.said().some((text) => /is now off/.test(text))).toBe(false);
    });

    it("splits a long answer into parts within the platform's limit, losing nothing", async () => {
      const d = await open();
      const count = Math.ceil((2.5 * d.maxLength) / 260);
      const paragraphs = Array.from(
        { length: count },
        (_, i) => `Paragraph ${i}: ${"word ".repeat(49)}end`,
      );
      d.model.script({ content: paragraphs.join("\n\n") });
      await d.send("a long answer please");
      await saysSoon(d, new RegExp(`Paragraph ${count - 1}:`));
      const parts = d.said();
      expect(parts.length).toBeGreaterThanOrEqual(3);
      for (const part of parts) expect(part.length).toBeLessThanOrEqual(d.maxLength);
      for (const paragraph of paragraphs) {
        expect(parts.filter((part) => part.includes(paragraph))).toHaveLength(1);
      }
    });

    it("streams an answer by editing its message, which ends as the whole answer", async () => {
      const d = await open(100);
      const answer = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
      d.model.script({ content: answer, chunkDelayMs: 40 });
      await d.send("stream it");
      await saysSoon(d, new RegExp(`^${answer}$`));
      await settle(300);
      expect(d.said()).toEqual([answer]);
      expect(d.edits()).toBeGreaterThan(0);
    });
  });
}
