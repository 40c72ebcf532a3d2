import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { signHook } from "../../src/core/hooks/index.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { createOpenAIProvider } from "../../src/providers/openai.ts";
import { type Bot, createBot } from "../../src/runtime/create-bot.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { until } from "../support/channels.ts";
import { MemoryChannel } from "../support/memory-channel.ts";
import { connectRedis, deleteKeysUnder, redisEnv, uniquePrefix } from "../support/redis.ts";
import { freePort } from "../support/switchyard-process.ts";

/** Named without a _SECRET suffix, so only the hook's registration keeps it out of the logs. */
const SECRET = "hook-bot-secret-5be81d";

let bot: Bot | undefined;
let fake: FakeOpenAI | undefined;
let dir: string | undefined;
let prefix = "";

afterEach(async () => {
  await bot?.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  const redis = connectRedis();
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
  bot = undefined;
});

const CONFIG = `access: { groups: open }
hooks:
  - name: deploys
    secret: \${DEPLOY_HOOK}
    target: { platform: memory, workspace: team, channel: ops }
    owner: alice
    prompt: "Deploy {{body.version}} finished: {{body.status}}. Tell the team in one line."
`;

describe("hooks in a bot made by createBot", () => {
  it("serves POST /hooks/<name> on the metrics port, answers in the target, and keeps the secret out of the logs", async () => {
    dir = mkdtempSync(join(tmpdir(), "bot-hooks-"));
    writeFileSync(join(dir, "switchyard.yaml"), CONFIG);
    prefix = uniquePrefix("bot-hooks");
    fake = await startFakeOpenAI();
    fake.script({ content: "Deploy 4.2 is out." });
    const lines: string[] = [];
    const logger = createLogger({
      level: "info",
      env: {},
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    const channel = new MemoryChannel();
    const port = await freePort();
    bot = createBot({
      config: join(dir, "switchyard.yaml"),
      channels: [channel],
      builtins: [],
      provider: createOpenAIProvider({ apiKey: "test", baseURL: fake.url, model: "fake-model" }),
      env: { ...redisEnv(), DEPLOY_HOOK: SECRET },
      prefix,
      queue: { debounceMs: 0 },
      metricsPort: port,
      metricsHost: "127.0.0.1",
      logger,
      processGuard: false,
    });
    await bot.start();

    const body = JSON.stringify({ version: "4.2", status: "green" });
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(`http://127.0.0.1:${port}/hooks/deploys`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-switchyard-timestamp": String(timestamp),
        "x-switchyard-delivery": "deploy-42",
        "x-switchyard-signature": signHook(SECRET, timestamp, "deploy-42", Buffer.from(body)),
      },
      body,
    });
    expect(response.status).toBe(202);
    const [post] = await until(() => (channel.posts.length > 0 ? channel.posts : undefined));
    expect(post).toMatchObject({ channel: "ops", text: "Deploy 4.2 is out." });
    expect(fake.requests[0]?.body.messages.at(-1).content).toContain(
      'Deploy <untrusted source="hook deploys body.version">\n4.2\n</untrusted> finished',
    );

    logger.warn({ note: `leaked ${SECRET}` }, `leaked ${SECRET}`);
    expect(lines.join("")).not.toContain(SECRET);
    expect(lines.at(-1)).toContain("[redacted]");
  });
});
