import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import { redactToken, trimRoot } from "../../src/platforms/telegram/api.ts";
import { DEFAULT_TELEGRAM, telegramSection } from "../../src/platforms/telegram/config-section.ts";
import {
  resolveTelegramMode,
  TelegramSettingsError,
  telegramOptionsFromEnv,
} from "../../src/platforms/telegram/settings.ts";

const TOKEN = "123456789:AAH-example_token";

function problem(input: unknown): string {
  const result = telegramSection.safeParse(input);
  if (result.success) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return result.error.issues.map((i) => i.message).join(" / ");
}

describe("the telegram: config section", () => {
  it("reads the documented keys, defaulting to one conversation per forum topic", () => {
    expect(telegramSection.parse({})).toEqual(DEFAULT_TELEGRAM);
    expect(
      telegramSection.parse({
        mode: "webhook",
        webhook_url: "https://bot.example.com/telegram/",
        api_root: "http://localhost:8081/",
        conversation: "chat",
      }),
    ).toEqual({
      mode: "webhook",
      webhookUrl: "https://bot.example.com/telegram",
      apiRoot: "http://localhost:8081",
      conversation: "chat",
    });
  });

  it("refuses what it cannot use, saying how to fix it", () => {
    expect(problem({ token: "x" })).toMatch(
      /unknown key "token".*stay in the environment: TELEGRAM_BOT_TOKEN/,
    );
    expect(problem({ mode: "push" })).toMatch(/expected polling or webhook, found "push"/);
    expect(problem({ conversation: "thread" })).toMatch(/expected topic or chat/);
    expect(problem({ api_root: "localhost:8081" })).toMatch(/is not an http\(s\) URL/);
    expect(problem({ webhook_url: "https://bot.example.com" })).toMatch(/needs a path/);
    expect(problem("polling")).toMatch(/expected a map/);
  });

  it("answers any input with a value or readable problems, never a throw", () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const result = telegramSection.safeParse(input);
        if (!result.success) {
          for (const issue of result.error.issues) expect(issue.message.length).toBeGreaterThan(10);
        }
      }),
    );
  });
});

describe("resolveTelegramMode", () => {
  it("polls unless a webhook URL is set or the file asks for webhooks", () => {
    expect(resolveTelegramMode({}, DEFAULT_TELEGRAM)).toEqual({ kind: "polling" });
    expect(
      resolveTelegramMode(
        { webhookUrl: "https://b.example/tg/", webhookSecret: "s3cret" },
        DEFAULT_TELEGRAM,
      ),
    ).toEqual({ kind: "webhook", url: "https://b.example/tg", secret: "s3cret" });
    expect(
      resolveTelegramMode(
        { webhookUrl: "https://b.example/tg" },
        { ...DEFAULT_TELEGRAM, mode: "polling" },
      ),
    ).toEqual({ kind: "polling" });
  });

  it("refuses a webhook without a URL, a path or a usable secret", () => {
    const webhook = { ...DEFAULT_TELEGRAM, mode: "webhook" as const };
    expect(() => resolveTelegramMode({ webhookSecret: "s" }, webhook)).toThrow(
      /no webhook URL. Set TELEGRAM_WEBHOOK_URL/,
    );
    expect(() =>
      resolveTelegramMode(
        { webhookUrl: "https://b.example", webhookSecret: "s" },
        DEFAULT_TELEGRAM,
      ),
    ).toThrow(/has no path/);
    expect(() =>
      resolveTelegramMode({ webhookUrl: "https://b.example/tg" }, DEFAULT_TELEGRAM),
    ).toThrow(TelegramSettingsError);
    expect(() =>
      resolveTelegramMode(
        { webhookUrl: "https://b.example/tg", webhookSecret: "has space" },
        DEFAULT_TELEGRAM,
      ),
    ).toThrow(/only letters, digits/);
  });
});

describe("telegramOptionsFromEnv", () => {
  const config = () => EMPTY_CONFIG;

  it("is off without TELEGRAM_BOT_TOKEN, and reads the other variables with it", () => {
    expect(telegramOptionsFromEnv({}, config)).toBeUndefined();
    const options = telegramOptionsFromEnv(
      {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_API_ROOT: "http://127.0.0.1:8081//",
        TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram",
        TELEGRAM_WEBHOOK_SECRET: "abc_DEF-123",
      },
      config,
      8443,
    );
    expect(options).toMatchObject({
      token: TOKEN,
      apiRoot: "http://127.0.0.1:8081",
      webhookUrl: "https://bot.example.com/telegram",
      webhookSecret: "abc_DEF-123",
      port: 8443,
    });
    expect(options?.settings?.()).toEqual(DEFAULT_TELEGRAM);
  });

  it("stops on a token that is not one, or a webhook without its secret", () => {
    expect(() => telegramOptionsFromEnv({ TELEGRAM_BOT_TOKEN: "xoxb-123" }, config)).toThrow(
      /does not look like a bot token/,
    );
    expect(() =>
      telegramOptionsFromEnv(
        { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_URL: "https://bot.example.com/tg" },
        config,
      ),
    ).toThrow(/needs TELEGRAM_WEBHOOK_SECRET/);
  });
});

describe("token redaction", () => {
  it("leaves no trace of the token in a message that quoted it, wherever it stood", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, after) => {
        const text = `${before}https://api.telegram.org/bot${TOKEN}/sendMessage${after}`;
        expect(redactToken(text, TOKEN)).not.toContain(TOKEN);
      }),
    );
    expect(trimRoot("http://x:8081///")).toBe("http://x:8081");
  });
});
