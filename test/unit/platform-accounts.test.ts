import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Channel } from "../../src/ingress/channel.ts";
import { AccountMissingError, accountChannels } from "../../src/platforms/account-channels.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import { discordSection } from "../../src/platforms/discord/config-section.ts";
import {
  type DiscordMessageLike,
  normalizeDiscordMessage,
} from "../../src/platforms/discord/normalize.ts";
import { slackSection } from "../../src/platforms/slack/config-section.ts";
import { normalizeSlackEvent } from "../../src/platforms/slack/normalize.ts";
import { telegramSection } from "../../src/platforms/telegram/config-section.ts";
import { normalizeTelegramMessage } from "../../src/platforms/telegram/normalize.ts";
import { telegramAccountOptions } from "../../src/platforms/telegram/settings.ts";
import { TELEGRAM_TRAITS } from "../../src/platforms/telegram/traits.ts";
import { RecordingOutbound } from "../support/recording-outbound.ts";

function problem(schema: typeof telegramSection | typeof slackSection, input: unknown): string {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return result.error.issues.map((i) => i.message).join(" / ");
}

/** A `${NAME}` reference, as the config writes a token. */
const variable = (name: string) => `\${${name}}`;

const where = { workspace: "1", channel: "1", conversation: "1" };

describe("the accounts: lists", () => {
  it("keep today's sections as they were: no accounts key unless some are listed", () => {
    expect(telegramSection.parse({})).not.toHaveProperty("accounts");
    expect(telegramSection.parse({ accounts: [] })).not.toHaveProperty("accounts");
    expect(slackSection.parse({})).not.toHaveProperty("accounts");
  });

  it("read a Telegram bot's id, token variable, agent and webhook", () => {
    expect(
      telegramSection.parse({
        accounts: [
          { id: "sales", token: variable("SALES"), agent: "support" },
          { id: "desk", token: variable("DESK"), webhook_url: "https://b.example.com/tg/desk/" },
        ],
      }).accounts,
    ).toEqual([
      { id: "sales", token: variable("SALES"), agent: "support" },
      { id: "desk", token: variable("DESK"), webhookUrl: "https://b.example.com/tg/desk" },
    ]);
  });

  it("refuse what cannot work, naming the account and the fix", () => {
    expect(
      problem(telegramSection, {
        accounts: [
          { id: "a", token: variable("A") },
          { id: "a", token: variable("B") },
        ],
      }),
    ).toMatch(/"a" is used twice/);
    expect(problem(telegramSection, { accounts: [{ id: "a b", token: variable("A") }] })).toMatch(
      /not an account id/,
    );
    expect(problem(telegramSection, { accounts: [{ id: "a" }] })).toMatch(
      /expected the bot's token/,
    );
    expect(
      problem(telegramSection, { accounts: [{ id: "a", token: variable("A").slice(0, -1) }] }),
    ).toMatch(/without a closing/);
    expect(
      problem(telegramSection, { accounts: [{ id: "a", token: variable("A"), port: 1 }] }),
    ).toMatch(
      /unknown key "port". A telegram account takes id:, token:, agent:, webhook_url: and paid_broadcast:/,
    );
    expect(
      problem(telegramSection, {
        accounts: [
          { id: "a", token: variable("A"), webhook_url: "https://x.example/tg" },
          { id: "b", token: variable("B"), webhook_url: "https://x.example/tg" },
        ],
      }),
    ).toMatch(/accounts a and b both take updates at \/tg/);
    expect(problem(slackSection, { accounts: [{ id: "eng", bot_token: variable("T") }] })).toMatch(
      /signing_secret: .* or app_token:/,
    );
    expect(
      problem(slackSection, {
        accounts: [{ id: "eng", bot_token: variable("T"), signing_secret: variable("S") }],
      }),
    ).toMatch(/needs app_id:/);
  });

  it("take any id of 1 to 32 letters, digits, _ and -, and refuse every other", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (id) => {
        const ok = /^[A-Za-z0-9_-]{1,32}$/.test(id);
        const result = telegramSection.safeParse({ accounts: [{ id, token: variable("T") }] });
        expect(result.success).toBe(ok);
      }),
      { numRuns: 500 },
    );
  });

  it("fill each token from the environment, and name the account whose variable is unset", () => {
    const config = {
      ...EMPTY_CONFIG,
      telegram: telegramSection.parse({
        accounts: [{ id: "sales", token: variable("SALES_TOKEN") }],
      }),
    };
    const [sales] = telegramAccountOptions({ SALES_TOKEN: "123:abc" }, () => config);
    expect(sales).toMatchObject({ token: "123:abc", account: "sales" });
    expect(sales?.settings?.()).toMatchObject({ mode: "polling" });
    const hooked = {
      ...EMPTY_CONFIG,
      telegram: telegramSection.parse({
        mode: "webhook",
        webhook_url: "https://bot.example.com/telegram",
        accounts: [
          { id: "sales", token: variable("SALES_TOKEN") },
          {
            id: "desk",
            token: variable("SALES_TOKEN"),
            webhook_url: "https://bot.example.com/tg/desk",
          },
        ],
      }),
    };
    const env = { SALES_TOKEN: "123:abc", TELEGRAM_WEBHOOK_SECRET: "s3cret" };
    const [polled, desk] = telegramAccountOptions(env, () => hooked);
    // The default bot's webhook is its own: an account without one polls.
    expect(polled?.settings?.()).toMatchObject({ mode: "polling" });
    expect(polled?.settings?.()).not.toHaveProperty("webhookUrl");
    expect(desk).toMatchObject({
      webhookUrl: "https://bot.example.com/tg/desk",
      webhookSecret: "s3cret",
    });
    expect(() => telegramAccountOptions({ SALES_TOKEN: "123:abc" }, () => hooked)).toThrow(
      /TELEGRAM_WEBHOOK_SECRET/,
    );
    expect(() => telegramAccountOptions({}, () => config)).toThrow(
      /token of telegram account "sales" uses \$\{SALES_TOKEN\}, which is not set/,
    );
    expect(() => telegramAccountOptions({ SALES_TOKEN: "nope" }, () => config)).toThrow(
      /telegram account "sales" does not look like a bot token/,
    );
  });
});

/** A channel that only records what its outbound is asked. */
function recorded(): Channel & { outbound: RecordingOutbound } {
  return {
    platform: "telegram",
    outbound: new RecordingOutbound(),
    start: async () => {},
    stop: async () => {},
  };
}

describe("accountChannels", () => {
  it("is the only account's channel itself when there is one", () => {
    const only = recorded();
    expect(accountChannels(TELEGRAM_TRAITS, [{ channel: only }])).toBe(only);
  });

  it("sends every answer through the account its conversation is with", async () => {
    const accounts = { main: recorded(), sales: recorded(), desk: recorded() };
    const channel = accountChannels(TELEGRAM_TRAITS, [
      { channel: accounts.main },
      { id: "sales", channel: accounts.sales },
      { id: "desk", channel: accounts.desk },
    ]);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(undefined, "sales", "desk"),
        fc.string(),
        async (account, text) => {
          const target = { platform: "telegram", ...(account ? { account } : {}), ...where };
          const before = Object.values(accounts).map((a) => a.outbound.calls.length);
          await channel.outbound.post(target, text, { idempotencyKey: `k-${Math.random()}` });
          const after = Object.values(accounts).map((a) => a.outbound.calls.length);
          const chosen = accounts[(account ?? "main") as keyof typeof accounts];
          expect(chosen.outbound.calls.at(-1)?.target).toEqual(target);
          expect(after.reduce((a, b) => a + b) - before.reduce((a, b) => a + b)).toBe(1);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("refuses an answer for an account it does not run, naming it", async () => {
    const channel = accountChannels(TELEGRAM_TRAITS, [{ id: "sales", channel: recorded() }]);
    const gone = { platform: "telegram", account: "old", ...where };
    await expect(channel.outbound.post(gone, "hi", { idempotencyKey: "k" })).rejects.toThrow(
      AccountMissingError,
    );
    await expect(channel.outbound.post(gone, "hi", { idempotencyKey: "k" })).rejects.toThrow(
      /No telegram account "old" runs in this bot/,
    );
    await expect(
      channel.outbound.post({ platform: "telegram", ...where }, "hi", { idempotencyKey: "k" }),
    ).rejects.toThrow(/no default telegram account/);
  });

  it("starts every account, and stops those it started when one fails", async () => {
    const stopped: string[] = [];
    const ok = { ...recorded(), stop: async () => void stopped.push("ok") };
    const failing = { ...recorded(), start: async () => Promise.reject(new Error("401")) };
    const channel = accountChannels(TELEGRAM_TRAITS, [
      { channel: ok },
      { id: "bad", channel: failing },
    ]);
    await expect(channel.start({} as never)).rejects.toThrow("401");
    expect(stopped).toEqual(["ok"]);
  });
});

describe("each platform's messages", () => {
  const account = fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/), { nil: undefined });

  it("carry the account that took them, and none for the default account", () => {
    const discord: DiscordMessageLike = {
      id: "1312345678900000001",
      content: "hi",
      createdTimestamp: 1_733_054_400_000,
      guildId: "1312345678900000100",
      channelId: "1312345678900000200",
      author: { id: "1312345678900000009", username: "ada", bot: false },
      channel: { isThread: () => false },
      attachments: new Map(),
      mentions: { users: new Map() },
    };
    const telegram = {
      message_id: 7,
      date: 1_733_054_400,
      chat: { id: 5001, type: "private" as const, first_name: "Alice" },
      from: { id: 5001, is_bot: false, first_name: "Alice" },
      text: "hi",
    };
    const slack = { type: "message", channel: "C1", ts: "1.000100", user: "U1", text: "hi" };
    fc.assert(
      fc.property(account, (id) => {
        const own = id ? { account: id } : {};
        const found = [
          normalizeDiscordMessage(discord, { botUserId: "1", conversation: "thread", ...own }),
          normalizeTelegramMessage(telegram as never, {
            bot: { id: 1, username: "bot" },
            conversation: "topic",
            ...own,
          }),
          normalizeSlackEvent(slack as never, {
            teamId: "T1",
            botUserId: "UBOT",
            session: "thread",
            ...own,
          }),
        ];
        for (const message of found) {
          expect(message).toBeDefined();
          expect(message?.account).toBe(id);
          expect(message && "account" in message).toBe(id !== undefined);
        }
      }),
      { numRuns: 50 },
    );
  });

  it("a Discord bot's accounts read as Telegram's do", () => {
    expect(discordSection.parse({})).not.toHaveProperty("accounts");
    expect(
      discordSection.parse({ accounts: [{ id: "support", token: variable("T"), agent: "s" }] })
        .accounts,
    ).toEqual([{ id: "support", token: variable("T"), agent: "s" }]);
  });
});
