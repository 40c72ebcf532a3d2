import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";
import { runConsoleStart } from "../support/start-command.ts";

let fake: FakeOpenAI | undefined;
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("the console channel under limits:", () => {
  it("lets the owner at the terminal in, but counts their messages: one limit reply, nothing more queued", async () => {
    fake = await startFakeOpenAI();
    const prefix = uniquePrefix("console-limits");
    const dir = mkdtempSync(join(tmpdir(), "switchyard-limits-"));
    const config = join(dir, "switchyard.yaml");
    writeFileSync(config, "access:\n  dm: closed\nlimits:\n  user: 2/h\n");
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      async () => {
        const redis = connectRedis();
        await deleteKeysUnder(redis, prefix);
        redis.disconnect();
      },
    );
    const { code, stdout } = await runConsoleStart("one\ntwo\nthree\nfour\n/tools\n", {
      SWITCHYARD_PREFIX: prefix,
      SWITCHYARD_CONFIG: config,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "test",
      SWITCHYARD_MODEL: "fake-model",
    });
    expect(code).toBe(0);
    const limitReplies = stdout.match(/over the limit of 2 messages per hour for one person/g);
    expect(limitReplies).toHaveLength(1);
    expect(stdout).toContain("(limits.user: 2/h), so I did not read it. You can write again in");
    // Commands are answered on the spot and not counted.
    expect(stdout).toMatch(/tools available/);
    const asked = fake.requests.flatMap((r) =>
      r.body.messages
        .filter((m: { role: string }) => m.role === "user")
        .map((m: { content: string }) => m.content),
    );
    expect(asked.join("\n")).toContain("one");
    expect(asked.join("\n")).toContain("two");
    expect(asked.join("\n")).not.toMatch(/three|four/);
  });
});
