import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { redisEnv } from "../support/redis.ts";

const run = promisify(execFile);
const FILE = fileURLToPath(new URL("../fixtures/node-test/kit.ts", import.meta.url));

it("works under node:test: a test bot answers, and the process ends by itself once it stops", async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...redisEnv(), LOG_LEVEL: "error" };
  delete env.NODE_OPTIONS;
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--test", FILE], {
    env,
    timeout: 90_000,
  });
  expect(stdout).toMatch(/^# pass 1$/m);
  expect(stdout).toMatch(/^# fail 0$/m);
}, 120_000);
