import fc from "fast-check";
import { BotError, GrammyError, HttpError } from "grammy";
import { ReplyError } from "ioredis";
import { describe, expect, it } from "vitest";
import { isTransientFailure } from "../../src/core/transient-failure.ts";
import { isTransientUpdateFailure } from "../../src/platforms/telegram/update-failure.ts";
import { UpdateInFlightError } from "../../src/platforms/telegram/update-ledger.ts";
import { InboundMessageError } from "../../src/ports/enqueue.ts";

const reply = (message: string) => new ReplyError(message) as Error;
const telegram = (code: number, description: string) =>
  new GrammyError(
    `Call to 'sendMessage' failed! (${code}: ${description})`,
    { ok: false, error_code: code, description },
    "sendMessage",
    {},
  );
const network = (code: string) =>
  Object.assign(new Error(`connect ${code} 127.0.0.1:6379`), { code });

describe("which failures pass", () => {
  it.each([
    ["Redis out of memory", reply("OOM command not allowed when used memory > 'maxmemory'.")],
    [
      "Redis out of memory inside a script",
      reply(
        "OOM command not allowed when used memory > 'maxmemory'. script: 7de17a7, on @user_script:1.",
      ),
    ],
    ["a replica after failover", reply("READONLY You can't write against a read only replica.")],
    ["a dataset still loading", reply("LOADING Redis is loading the dataset in memory")],
    ["a busy script", reply("BUSY Redis is busy running a script.")],
    ["a cluster without quorum", reply("CLUSTERDOWN The cluster is down")],
    [
      "a snapshot that cannot be written",
      reply("MISCONF Redis is configured to save RDB snapshots"),
    ],
    ["a refused connection", network("ECONNREFUSED")],
    ["a reset connection", network("ECONNRESET")],
    ["a closed ioredis connection", new Error("Connection is closed.")],
    ["an ioredis command timeout", new Error("Command timed out")],
    [
      "Telegram unreachable",
      new HttpError("Network request for 'getMe' failed!", network("ETIMEDOUT")),
    ],
    ["Telegram's 5xx", telegram(502, "Bad Gateway")],
    ["Telegram's 429", telegram(429, "Too Many Requests: retry after 5")],
    ["another delivery taking it", new UpdateInFlightError(42)],
  ])("%s is tried again", (_, error) => {
    expect(isTransientUpdateFailure(error)).toBe(true);
  });

  it.each([
    ["a bug", new TypeError("Cannot read properties of undefined (reading 'id')")],
    [
      "a message the queue refuses",
      new InboundMessageError("An inbound message was refused: text"),
    ],
    ["Telegram's refusal", telegram(403, "Forbidden: bot was blocked by the user")],
    ["a bad request", telegram(400, "Bad Request: chat not found")],
    [
      "a wrong Redis type (data, not Redis, is at fault)",
      reply("WRONGTYPE Operation against a key holding the wrong kind of value"),
    ],
    ["a thrown string", "boom"],
    ["undefined", undefined],
  ])("%s is not", (_, error) => {
    expect(isTransientUpdateFailure(error)).toBe(false);
  });

  it("looks through grammY's BotError, causes and AggregateErrors to what failed", () => {
    const oom = reply("OOM command not allowed when used memory > 'maxmemory'.");
    expect(isTransientFailure(new BotError(oom, {} as never))).toBe(true);
    expect(isTransientFailure(new Error("enqueue failed", { cause: oom }))).toBe(true);
    expect(isTransientFailure(new AggregateError([new TypeError("x"), network("EPIPE")]))).toBe(
      true,
    );
    expect(isTransientFailure(new BotError(new TypeError("bug"), {} as never))).toBe(false);
  });

  it("never throws on anything thrown, cycles included", () => {
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    expect(isTransientFailure(cyclic)).toBe(false);
    fc.assert(
      fc.property(fc.anything(), (thrown) => {
        expect(typeof isTransientUpdateFailure(thrown)).toBe("boolean");
      }),
    );
  });
});
