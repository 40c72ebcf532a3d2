import { afterEach, describe, expect, it } from "vitest";
import type { Hook } from "../../src/core/hooks/index.ts";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-model.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import { TEAM, useTelegram } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { botPosts, HUMAN, startDiscordBot } from "../support/discord.ts";
import { ciHook, type HookServer, serveTestHooks } from "../support/hooks.ts";
import type { Pipeline } from "../support/pipeline.ts";
import { settle, useSlackHarness, visibleFlat } from "../support/slack-harness.ts";

const startSlack = useSlackHarness();
const telegram = useTelegram();

const servers: HookServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const close of closers.splice(0)) await close();
});

const BODY = JSON.stringify({ summary: "3 tests failed in checkout", run: 812 });

async function hooksFor(pipe: Pipeline, hook: Hook): Promise<HookServer> {
  const server = await serveTestHooks(pipe, [hook]);
  servers.push(server);
  return server;
}

/**
 * What every platform shows: a signed call answered once where the hook
 * points, its body reaching the model as untrusted data; the same call
 * again, an unsigned one and a forged one refused with no turn.
 */
async function answersOnceAndRefusesTheRest(
  pipe: Pipeline,
  server: HookServer,
  posted: () => string[],
): Promise<void> {
  pipe.fake.script({ content: "The checkout tests broke on the new tax rule." });
  const accepted = await server.post("ci-failed", { body: BODY, delivery: "build-812" });
  expect(accepted.status).toBe(202);
  expect(accepted.body).toMatchObject({ accepted: true, event: "hook:ci-failed:build-812" });
  // Slack streams the answer into its message: wait for the last edit.
  const answers = await until(() => (posted()[0]?.includes("new tax rule") ? posted() : undefined));
  expect(answers).toEqual([
    expect.stringContaining("The checkout tests broke on the new tax rule"),
  ]);
  const asked = pipe.fake.requests[0]?.body.messages.at(-1);
  expect(asked.role).toBe("user");
  expect(asked.content).toContain(
    'CI failed: <untrusted source="hook ci-failed body.summary">\n3 tests failed in checkout\n</untrusted>. Look at the log',
  );

  const replay = await server.post("ci-failed", { body: BODY, delivery: "build-812" });
  expect(replay.status).toBe(409);
  expect(replay.body).toMatchObject({ error: "replayed" });
  const unsigned = await server.post("ci-failed", {
    body: BODY,
    delivery: "build-813",
    unsigned: true,
  });
  expect(unsigned.status).toBe(401);
  expect(unsigned.body.fix).toContain("X-Switchyard-Signature");
  const forged = await server.post("ci-failed", {
    body: BODY,
    delivery: "build-814",
    secret: "a-guess",
  });
  expect(forged.status).toBe(401);
  const stale = await server.post("ci-failed", {
    body: BODY,
    delivery: "build-815",
    timestamp: Math.floor(Date.now() / 1000) - 600,
  });
  expect(stale.status).toBe(401);
  await settle();
  expect(pipe.fake.requests).toHaveLength(1);
  expect(posted()).toHaveLength(1);
}

describe("a hook's signed POST", () => {
  it("on Slack: answered once in its channel; replayed, unsigned and forged calls make no turn", async () => {
    const h = await startSlack();
    const server = await hooksFor(
      h.pipe,
      ciHook(
        { platform: "slack", workspace: FAKE_SLACK.teamId, channel: "C0HOOKS", kind: "group" },
        "U0HUMAN",
      ),
    );
    await answersOnceAndRefusesTheRest(h.pipe, server, () => visibleFlat(h.slack, "C0HOOKS"));
  });

  it("on Discord: answered once in its channel; replayed, unsigned and forged calls make no turn", async () => {
    const setup = await startDiscordBot();
    closers.push(() => setup.close());
    const server = await hooksFor(
      setup.pipe,
      ciHook(
        {
          platform: "discord",
          workspace: FAKE_DISCORD.guildId,
          channel: FAKE_DISCORD.channelId,
          kind: "group",
        },
        HUMAN,
      ),
    );
    await answersOnceAndRefusesTheRest(setup.pipe, server, () =>
      botPosts(setup.discord, FAKE_DISCORD.channelId).map((m) => m.content),
    );
  });

  it("on Telegram: answered once in its chat; replayed, unsigned and forged calls make no turn", async () => {
    const setup = await telegram.start();
    const chat = String(TEAM);
    const server = await hooksFor(
      setup.pipe,
      ciHook({ platform: "telegram", workspace: chat, channel: chat, kind: "group" }, "5002"),
    );
    await answersOnceAndRefusesTheRest(setup.pipe, server, () =>
      setup.telegram.botMessages(TEAM).map((m) => m.text ?? ""),
    );
  });
});
