import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctorCommand } from "../../src/cli/doctor.ts";
import { type FakeDiscord, startFakeDiscord } from "../../src/testing/fakes/discord-api.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import {
  FAKE_TELEGRAM,
  type FakeTelegram,
  startFakeTelegram,
} from "../../src/testing/fakes/telegram-api.ts";
import { redisEnv } from "../support/redis.ts";

const SALES = {
  token: "7000000002:AAFakeSalesTokenForSwitchyardTests_q1W",
  bot: { ...FAKE_TELEGRAM.bot, id: 7000000002, first_name: "Sales", username: "sales_bot" },
};
const ENG = {
  botToken: "xoxb-fake-eng-token",
  botUserId: "U0ENGBOT",
  botId: "B0ENGBOT",
  appId: "A0ENGAPP",
};

describe("switchyard doctor with several bot accounts", () => {
  let telegram: FakeTelegram;
  let slack: FakeSlackApi;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    [telegram, slack] = await Promise.all([
      startFakeTelegram({ bots: [SALES] }),
      startFakeSlackApi({ apps: [ENG] }),
    ]);
    dir = mkdtempSync(join(tmpdir(), "sy-doctor-accounts-"));
    const configFile = join(dir, "switchyard.yaml");
    writeFileSync(
      configFile,
      [
        "telegram:",
        "  accounts:",
        "    - id: sales",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
        "      token: ${TELEGRAM_SALES_TOKEN}",
        "    - id: stale",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
        "      token: ${TELEGRAM_STALE_TOKEN}",
        "    - id: unset",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
        "      token: ${TELEGRAM_UNSET_TOKEN}",
        "slack:",
        "  accounts:",
        "    - id: eng",
        `      app_id: ${ENG.appId}`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
        "      bot_token: ${SLACK_ENG_BOT_TOKEN}",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VARIABLE} syntax.
        "      signing_secret: ${SLACK_ENG_SIGNING_SECRET}",
        "",
      ].join("\n"),
    );
    env = {
      ...redisEnv(),
      SWITCHYARD_CONFIG: configFile,
      SLACK_BOT_TOKEN: FAKE_SLACK.botToken,
      SLACK_SIGNING_SECRET: "doctor-signing-secret",
      SLACK_API_URL: slack.url,
      SLACK_ENG_BOT_TOKEN: ENG.botToken,
      SLACK_ENG_SIGNING_SECRET: "eng-signing-secret",
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      TELEGRAM_SALES_TOKEN: SALES.token,
      TELEGRAM_STALE_TOKEN: "7000000009:AAStaleTokenNobodyKnows_0000000000",
    };
  }, 60_000);

  afterAll(async () => {
    await Promise.all([telegram.close(), slack.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("checks each account on its own, naming the account of each problem", async () => {
    const lines: string[] = [];
    await runDoctorCommand([], { env, print: (line) => lines.push(line), timeoutMs: 5_000 });
    const of = (check: string) => lines.filter((l) => l.split(/\s+/)[1] === check);
    expect(of("telegram")[0]).toMatch(/^ok .*bot @switchyard_bot \(7000000001\)$/);
    expect(of("telegram@sales")[0]).toMatch(/^ok .*bot @sales_bot \(7000000002\)$/);
    expect(of("telegram@sales")[1]).toMatch(/^ok .*long polling: no webhook registered$/);
    expect(of("telegram@stale")[0]).toMatch(/^problem .*Telegram refuses the bot token \(401\)/);
    expect(of("telegram@stale").join("\n")).toContain("telegram.accounts stale's token");
    expect(of("telegram@unset")[0]).toMatch(/^problem .*TELEGRAM_UNSET_TOKEN/);
    expect(of("slack@eng")[0]).toMatch(/^ok .*bot .*\(U0ENGBOT\)/);
    expect(of("slack@eng")[1]).toMatch(/^ok .*the token has every scope/);
    expect(of("slack")[0]).toMatch(/^ok .*\(U0FAKEBOT\)/);
    // The account's token is used, and never shown.
    expect(telegram.account(SALES.token).callsTo("getMe")).not.toHaveLength(0);
    expect(lines.join("\n")).not.toContain(SALES.token);
    expect(lines.join("\n")).not.toContain(ENG.botToken);
  }, 60_000);
});

describe("switchyard doctor with several Discord bots", () => {
  const SUPPORT = {
    token: "fake-discord-support-token",
    applicationId: "1100000000000000002",
    botUserId: "1100000000000000002",
    botUsername: "support",
  };
  const MUTED = {
    token: "fake-discord-muted-token",
    applicationId: "1100000000000000003",
    botUserId: "1100000000000000003",
    botUsername: "muted",
    applicationFlags: 0,
  };
  let discord: FakeDiscord;
  let dir: string;

  beforeAll(async () => {
    discord = await startFakeDiscord({ bots: [SUPPORT, MUTED] });
    dir = mkdtempSync(join(tmpdir(), "sy-doctor-discord-"));
  });

  afterAll(async () => {
    await discord.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("checks each bot's token and Message Content intent as its own, naming the account", async () => {
    const configFile = join(dir, "switchyard.yaml");
    const account = (id: string) => [
      `    - id: ${id}`,
      `      token: \${DISCORD_${id.toUpperCase()}_TOKEN}`,
    ];
    writeFileSync(
      configFile,
      ["discord:", "  accounts:", ...["support", "muted", "stale"].flatMap(account), ""].join("\n"),
    );
    const env = {
      ...redisEnv(),
      SWITCHYARD_CONFIG: configFile,
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_SUPPORT_TOKEN: SUPPORT.token,
      DISCORD_MUTED_TOKEN: MUTED.token,
      DISCORD_STALE_TOKEN: "a-token-discord-never-issued",
    };
    const lines: string[] = [];
    await runDoctorCommand([], { env, print: (line) => lines.push(line), timeoutMs: 5_000 });
    const of = (check: string) => lines.filter((l) => l.split(/\s+/)[1] === check);
    expect(of("discord")[0]).toMatch(/^ok .*bot switchyard \(1100000000000000001\)$/);
    expect(of("discord@support")).toEqual([
      expect.stringMatching(/^ok .*bot support \(1100000000000000002\)$/),
      expect.stringMatching(/^ok .*the Message Content intent is on$/),
    ]);
    expect(of("discord@muted")[1]).toMatch(/^problem .*the Message Content intent is off/);
    expect(of("discord@stale")[0]).toMatch(/^problem .*Discord refuses the bot token \(401/);
    expect(of("discord@stale").join("\n")).toContain("discord.accounts stale's token");
    // Each bot was asked with its own token, and no token is shown.
    expect(discord.account(SUPPORT.token).calls.map((c) => c.path)).toContain("/users/@me");
    expect(discord.account(MUTED.token).calls.map((c) => c.path)).toContain("/applications/@me");
    expect(lines.join("\n")).not.toContain(SUPPORT.token);
  }, 60_000);
});
