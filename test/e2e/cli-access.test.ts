import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, it } from "vitest";
import { createStore } from "../../src/store/index.ts";
import {
  connectRedis,
  deleteKeysUnder,
  envWithoutRedis,
  redisEnv,
  uniquePrefix,
} from "../support/redis.ts";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));

/** Runs `switchyard access ...` on the shared Redis under `prefix`; never throws on an exit code. */
function access(prefix: string, args: string[]) {
  return new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, "access", ...args],
      { env: { ...envWithoutRedis(), ...redisEnv(), SWITCHYARD_PREFIX: prefix } },
      (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
    );
  });
}

const prefixes: string[] = [];
// After all: the cases run side by side, and one's cleanup must not empty the other's prefix.
afterAll(async () => {
  const redis = connectRedis();
  for (const prefix of prefixes.splice(0)) await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

// Each case has a prefix of its own, so they run side by side: most of their time is the
// command starting.
describe.concurrent("switchyard access", () => {
  it("approves a pairing code once from a shell, lists the approval and revokes it", async ({
    expect,
  }) => {
    const prefix = uniquePrefix("cli-access");
    prefixes.push(prefix);
    const redis = connectRedis();
    const store = createStore(redis, { prefix });
    await store.access.issue(
      { user: "telegram:5001", name: "Alice" },
      "K7QM2XPA",
      600_000,
      Date.now(),
    );

    // A usage error reads nothing from Redis: it runs beside the first list.
    const [waiting, usage] = await Promise.all([
      access(prefix, ["list"]),
      access(prefix, ["promote", "x"]),
    ]);
    expect(usage.code).toBe(2);
    expect(waiting.code).toBe(0);
    expect(waiting.stdout).toMatch(
      /Waiting for approval:\n- Alice \(telegram:5001\), code expires in (9|10) minutes/,
    );

    const approved = await access(prefix, ["approve", "k7qm-2xpa"]);
    expect(approved).toEqual({
      code: 0,
      stdout:
        "Approved Alice (telegram:5001): their messages are answered from now on. Undo with /access revoke telegram:5001.\n",
    });
    expect(await store.access.isApproved("telegram:5001")).toBe(true);
    const again = await access(prefix, ["approve", "K7QM2XPA"]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain("No live pairing code K7QM2XPA");

    const listed = await access(prefix, ["list"]);
    expect(listed.stdout).toMatch(
      /Approved by pairing:\n- Alice \(telegram:5001\), by cli on \d{4}-\d\d-\d\d/,
    );
    expect((await access(prefix, ["revoke", "telegram:5001"])).code).toBe(0);
    expect(await store.access.isApproved("telegram:5001")).toBe(false);
    expect((await access(prefix, ["revoke", "telegram:5001"])).code).toBe(1);
    redis.disconnect();
  }, 180_000);

  it("pages the waiting list as chat does, and says how to ask for the next page", async ({
    expect,
  }) => {
    const prefix = uniquePrefix("cli-access");
    prefixes.push(prefix);
    const redis = connectRedis();
    const store = createStore(redis, { prefix });
    for (let n = 0; n < 12; n++) {
      await store.access.issue(
        { user: `telegram:${6000 + n}` },
        `K7QM2XP${"ABCDEFGHJKMN"[n]}`,
        600_000,
        Date.now(),
      );
    }
    redis.disconnect();
    // Three reads of the same list: side by side.
    const [first, second, notPage] = await Promise.all([
      access(prefix, ["list"]),
      access(prefix, ["list", "2"]),
      access(prefix, ["list", "two"]),
    ]);
    expect(first.stdout).toContain("Waiting for approval: 12, newest first, page 1 of 2:");
    expect(first.stdout).toContain("Next: switchyard access list 2.");
    expect(second.stdout).toMatch(
      /^Waiting for approval: 12, newest first, page 2 of 2:\n- telegram:600[01], code expires in (9|10) minutes\n- telegram:600[01], /,
    );
    expect(notPage).toEqual({
      code: 1,
      stdout: '"two" is not a page number: e.g. switchyard access list 2.\n',
    });
  }, 180_000);
});
