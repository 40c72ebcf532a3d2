import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Api } from "grammy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctorCommand } from "../../src/cli/doctor.ts";
import { requiredSlackScopes } from "../../src/platforms/slack/scopes.ts";
import { type FakeDiscord, startFakeDiscord } from "../../src/testing/fakes/discord-api.ts";
import {
  FAKE_MODEL_ID,
  type FakeOpenAI,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import { type FakeSearxng, startFakeSearxng } from "../fakes/searxng.ts";
import { startFakeSocketMode } from "../fakes/slack-socket.ts";
import { FIXTURE } from "../support/mcp.ts";
import { redisEnv } from "../support/redis.ts";
import { freePort } from "../support/switchyard-process.ts";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));

describe("switchyard doctor, against the fake platforms, model and servers", () => {
  let model: FakeOpenAI;
  let slack: FakeSlackApi;
  let telegram: FakeTelegram;
  let discord: FakeDiscord;
  let searx: FakeSearxng;
  let dir: string;
  let configFile: string;
  let healthy: NodeJS.ProcessEnv;

  beforeAll(async () => {
    [model, slack, telegram, discord, searx] = await Promise.all([
      startFakeOpenAI(),
      startFakeSlackApi(),
      startFakeTelegram(),
      startFakeDiscord(),
      startFakeSearxng(),
    ]);
    searx.results = [{ url: "https://a.example", title: "A", content: "About A" }];
    dir = mkdtempSync(join(tmpdir(), "sy-doctor-"));
    configFile = join(dir, "switchyard.yaml");
    writeFileSync(
      configFile,
      [
        "web:",
        "  search:",
        "    provider: searxng",
        `    url: ${searx.url}`,
        "mcp:",
        "  servers:",
        "    fixture:",
        `      command: ${JSON.stringify(FIXTURE.command)}`,
        `      args: ${JSON.stringify(FIXTURE.args)}`,
        "",
      ].join("\n"),
    );
    healthy = {
      ...redisEnv(),
      SWITCHYARD_CONFIG: configFile,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-doctor-test-key-0123456789",
      SWITCHYARD_MODEL: FAKE_MODEL_ID,
      SLACK_BOT_TOKEN: FAKE_SLACK.botToken,
      SLACK_SIGNING_SECRET: "doctor-signing-secret",
      SLACK_API_URL: slack.url,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
    };
  }, 60_000);

  afterAll(async () => {
    await Promise.all([
      model.close(),
      slack.close(),
      telegram.close(),
      discord.close(),
      searx.close(),
    ]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function doctor(env: NodeJS.ProcessEnv): Promise<{ code: number; lines: string[] }> {
    const lines: string[] = [];
    const code = await runDoctorCommand([], {
      env,
      print: (line) => lines.push(line),
      timeoutMs: 5_000,
    });
    return { code, lines };
  }
  const line = (lines: string[], check: string) => lines.filter((l) => l.split(/\s+/)[1] === check);

  it("passes every check when everything answers, names what it found, and exits 0", async () => {
    const { code, lines } = await doctor(healthy);
    expect(lines.filter((l) => l.startsWith("problem"))).toEqual([]);
    expect(code).toBe(0);
    expect(line(lines, "config")[0]).toMatch(/parses$/);
    expect(line(lines, "redis")[0]).toMatch(
      /^ok {7}redis {4}Redis \d+\.\d+\.\d+, (standalone|cluster)/,
    );
    expect(line(lines, "redis")[0]).toMatch(
      /wait list sy:\{q:turns:0of1:\d+\}:switchyard-turns:wait/,
    );
    expect(line(lines, "model")).toEqual([
      `ok       model    ${FAKE_MODEL_ID} at ${model.url} answers, and takes stream_options, prompt_cache_key, tools`,
    ]);
    expect(line(lines, "slack")[0]).toBe(
      `ok       slack    bot ${FAKE_SLACK.botName} (${FAKE_SLACK.botUserId}) in workspace ${FAKE_SLACK.teamName} (${FAKE_SLACK.teamId})`,
    );
    expect(line(lines, "slack")[1]).toBe(
      `ok       slack    the token has every scope the bot uses (${requiredSlackScopes().length})`,
    );
    expect(line(lines, "telegram")[1]).toBe(
      "ok       telegram long polling: no webhook registered",
    );
    expect(line(lines, "discord")[1]).toBe("ok       discord  the Message Content intent is on");
    expect(line(lines, "mcp:fixture")[0]).toMatch(/^ok {7}mcp:fixture connected, \d+ tool\(s\)$/);
    expect(line(lines, "search")[0]).toBe(
      "ok       search   SearxNG answers (1 result(s) for a test query)",
    );
    expect(lines.at(-1)).toMatch(/^All \d+ checks passed\.$/);
    // The model got the request a turn sends: streamed, with usage, a cache key and tools.
    const probe = model.requests.at(-1)?.body;
    expect(probe).toMatchObject({
      model: FAKE_MODEL_ID,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(probe.prompt_cache_key).toEqual(expect.any(String));
    expect(probe.tools).toHaveLength(1);
    const text = lines.join("\n");
    for (const secret of [
      healthy.OPENAI_API_KEY,
      FAKE_SLACK.botToken,
      telegram.token,
      discord.token,
    ]) {
      expect(text).not.toContain(secret);
    }
  }, 60_000);

  it("names a refused Slack token and the fix, without printing it", async () => {
    const { code, lines } = await doctor({
      ...healthy,
      SLACK_BOT_TOKEN: "xoxb-0000-wrong-token-abcdef",
    });
    expect(code).toBe(1);
    expect(line(lines, "slack")).toEqual([
      "problem  slack    Slack refuses the bot token (invalid_auth) Fix: copy the Bot User OAuth Token (xoxb-...) from the app's OAuth & Permissions page into SLACK_BOT_TOKEN",
    ]);
    expect(lines.join("\n")).not.toContain("wrong-token");
    expect(lines.at(-1)).toMatch(/^1 of \d+ checks found a problem\.$/);
  }, 60_000);

  it("names a scope the Slack token lacks, what needs it, and how to add it", async () => {
    const lacking = await startFakeSlackApi({
      scopes: requiredSlackScopes().filter((scope) => scope !== "groups:read"),
    });
    try {
      const { code, lines } = await doctor({ ...healthy, SLACK_API_URL: lacking.url });
      expect(code).toBe(1);
      expect(line(lines, "slack")[1]).toBe(
        "problem  slack    the token lacks groups:read (for conversations.info, conversations.members, users.conversations) Fix: add them under OAuth & Permissions -> Scopes (or create the app from deploy/slack/manifest.yaml), then reinstall the app to the workspace",
      );
    } finally {
      await lacking.close();
    }
  }, 60_000);

  it("names assistant:write for an app installed before the assistant pane, with how to turn the pane on", async () => {
    const older = await startFakeSlackApi({
      scopes: requiredSlackScopes().filter((scope) => scope !== "assistant:write"),
    });
    try {
      const { code, lines } = await doctor({ ...healthy, SLACK_API_URL: older.url });
      expect(code).toBe(1);
      expect(line(lines, "slack")[1]).toBe(
        "problem  slack    the token lacks assistant:write (for assistant.threads.setSuggestedPrompts, assistant.threads.setTitle, assistant_thread_started events, assistant_thread_context_changed events) Fix: add them under OAuth & Permissions -> Scopes (or create the app from deploy/slack/manifest.yaml), then reinstall the app to the workspace; for assistant:write, also turn on Agents & AI Apps (features.assistant_view in the manifest) and subscribe to assistant_thread_started and assistant_thread_context_changed",
      );
    } finally {
      await older.close();
    }
  }, 60_000);

  it("checks Socket Mode's app token: accepted, or refused with the fix", async () => {
    const appToken = "xapp-1-A0FAKEAPP-1-doctorsecret";
    const socket = await startFakeSocketMode(slack, { appToken });
    try {
      const socketEnv = { ...healthy, SLACK_SIGNING_SECRET: undefined, SLACK_APP_TOKEN: appToken };
      const accepted = await doctor(socketEnv);
      expect(line(accepted.lines, "slack")[1]).toBe(
        "ok       slack    the app token opens a Socket Mode connection",
      );
      const refused = await doctor({
        ...socketEnv,
        SLACK_APP_TOKEN: "xapp-1-A0FAKEAPP-1-wrongsecret",
      });
      expect(refused.code).toBe(1);
      expect(line(refused.lines, "slack")[1]).toMatch(
        /^problem {2}slack {4}Slack refuses the app token \(invalid_auth\) Fix: create an app-level token with connections:write/,
      );
      expect(refused.lines.join("\n")).not.toContain("wrongsecret");
    } finally {
      await socket.close();
    }
  }, 60_000);

  it("says a model server that is down does not answer, and how to fix it", async () => {
    const down = `http://127.0.0.1:${await freePort()}/v1`;
    const { code, lines } = await doctor({ ...healthy, OPENAI_BASE_URL: down });
    expect(code).toBe(1);
    expect(line(lines, "model")).toEqual([
      `problem  model    ${down} does not answer: Connection error. (ECONNREFUSED) Fix: start the model server, or set OPENAI_BASE_URL to where it listens (with /v1)`,
    ]);
  }, 60_000);

  it("names the request feature a model server refuses", async () => {
    const strict = await startFakeOpenAI({
      responder: (request) =>
        request.body.prompt_cache_key === undefined
          ? { content: "ok" }
          : {
              status: 400,
              errorBody: {
                error: { message: "Unrecognized request argument supplied: prompt_cache_key" },
              },
            },
    });
    try {
      const { code, lines } = await doctor({ ...healthy, OPENAI_BASE_URL: strict.url });
      expect(code).toBe(1);
      expect(line(lines, "model")[0]).toMatch(
        /^problem {2}model {4}fake-model at \S+ answers a plain request but refuses prompt_cache_key, which every turn sends: .*Unrecognized request argument supplied: prompt_cache_key.* Fix: /,
      );
    } finally {
      await strict.close();
    }
  }, 60_000);

  it("finds a Discord app without the Message Content intent and a Telegram webhook pointing elsewhere", async () => {
    const intentless = await startFakeDiscord({ applicationFlags: 0 });
    const api = new Api(telegram.token, { apiRoot: telegram.apiRoot });
    await api.setWebhook("https://old.example.net/telegram");
    try {
      const { code, lines } = await doctor({
        ...healthy,
        DISCORD_API_URL: intentless.apiUrl,
        TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram",
        TELEGRAM_WEBHOOK_SECRET: "doctor-webhook-secret",
      });
      expect(code).toBe(1);
      expect(line(lines, "discord")[1]).toBe(
        "problem  discord  the Message Content intent is off, so the gateway refuses the bot (close code 4014) Fix: switch on Developer Portal -> your application -> Bot -> Message Content Intent",
      );
      expect(line(lines, "telegram")[1]).toBe(
        "problem  telegram Telegram sends updates to https://old.example.net, not the configured https://bot.example.com Fix: start the ingress (it registers TELEGRAM_WEBHOOK_URL), and make sure no other deployment uses this bot",
      );
    } finally {
      await api.deleteWebhook();
      await intentless.close();
    }
  }, 60_000);

  it("points at the config file's line, and still checks the rest", async () => {
    const broken = join(dir, "broken.yaml");
    writeFileSync(broken, "tools:\n  web_search: maybe\n");
    const { code, lines } = await doctor({ ...healthy, SWITCHYARD_CONFIG: broken });
    expect(code).toBe(1);
    expect(line(lines, "config")[0]).toMatch(
      new RegExp(
        `^problem  config   ${broken}:2: tools\\.web_search: "maybe" is not on/off/ask/true/false\\..* Fix: correct the file at that line`,
      ),
    );
    expect(line(lines, "model")[0]).toMatch(/^ok/);
  }, 60_000);

  it("is a command of the CLI, listed in --help, whose exit code says whether a check failed", () => {
    const help = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
    expect(help.stdout).toMatch(/^ {2}doctor {3}Check a deployment/m);
    const run = spawnSync(process.execPath, [BIN, "doctor"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, ...redisEnv(), SWITCHYARD_CONFIG: join(dir, "missing.yaml") },
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^problem {2}config {3}.*missing\.yaml/m);
    expect(run.stdout).toMatch(/^problem {2}model {4}no model is configured/m);
  }, 90_000);
});
