import { describe, expect, it } from "vitest";
import { DEFAULT_COMMAND_POLICY } from "../../src/core/commands/index.ts";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { IngressGate } from "../../src/ingress/access/gate.ts";
import {
  handleAccessCommand,
  PENDING_PAGE_SIZE,
} from "../../src/ingress/commands/access-command.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { createStore, MAX_PENDING_REQUESTS, type Store } from "../../src/store/index.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("pairing-pending");

const OWNER = { id: "telegram:1", isPlatformAdmin: false };
const POLICY = { ...DEFAULT_COMMAND_POLICY, owners: ["telegram:1"] };

function stranger(n: number): InboundMessage {
  return {
    platform: "telegram",
    workspace: String(1000 + n),
    channel: String(1000 + n),
    conversation: String(1000 + n),
    user: String(1000 + n),
    userName: `Stranger ${n}`,
    kind: "dm",
    text: "hi",
    attachments: [],
    eventId: `s:${n}`,
    time: Date.now(),
  };
}

/** `count` strangers write to a bot under `dm: pairing`, a hundred at a time; each gets code `C` + their number. */
async function strangersWrite(store: Store, count: number): Promise<void> {
  let n = 0;
  const gate = new IngressGate({
    store,
    config: () => parseConfig("", "switchyard.yaml"),
    newCode: () => codeFor(++n),
  });
  for (let first = 1; first <= count; first += 100) {
    const batch = Array.from({ length: Math.min(100, count - first + 1) }, (_, i) => first + i);
    // One at a time within the batch's order would be slow; admit concurrently, codes follow issue order.
    await Promise.all(batch.map((i) => gate.admit(stranger(i))));
  }
}

/** A valid 8-character code for the nth issue: digits 2-9 only, in base 8. */
function codeFor(n: number): string {
  return n
    .toString(8)
    .padStart(8, "0")
    .replace(/[0-7]/g, (d) => String(Number(d) + 2));
}

const owner = (store: Store, line: string) =>
  handleAccessCommand(line, OWNER, POLICY, {
    access: store.access,
    config: () => parseConfig("", "switchyard.yaml"),
  });

describe("the pairing waiting list", () => {
  it("keeps at most MAX_PENDING_REQUESTS of 3,000 strangers, dropping the oldest, and their codes still work", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    await strangersWrite(store, 3000);
    const keys = store.keys.access();
    expect(await db.redis.hlen(keys.pending)).toBe(MAX_PENDING_REQUESTS);
    expect(await db.redis.zcard(keys.pendingOrder)).toBe(MAX_PENDING_REQUESTS);
    const page = await store.access.pending(0, 3);
    expect(page.total).toBe(MAX_PENDING_REQUESTS);
    expect(page.requests.map((r) => r.name)).toHaveLength(3);
    // The one who wrote first left the list, but the code they were given is still good.
    const all = await db.redis.hkeys(keys.pending);
    expect(all).not.toContain("telegram:1001");
    const issuedFirst = await store.access.approve(codeFor(1), "telegram:1", Date.now());
    expect(issuedFirst?.user).toMatch(/^telegram:\d+$/);
    expect(await store.access.isApproved(issuedFirst?.user ?? "")).toBe(true);
  });

  it("prunes expired requests when the next stranger writes, without anyone listing", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    await strangersWrite(store, 3);
    const keys = store.keys.access();
    // Two codes that expired long ago, as Redis's clock sees it.
    await db.redis.zadd(keys.pendingOrder, 1, "telegram:1001", 2, "telegram:1002");
    await store.access.issue({ user: "telegram:9" }, "ZZZZZZZZ", 60_000, Date.now());
    expect((await db.redis.hkeys(keys.pending)).sort()).toEqual(["telegram:1003", "telegram:9"]);
    expect(await db.redis.zcard(keys.pendingOrder)).toBe(2);
  });

  it("starts the list afresh when an older version left a hash without its order", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    const keys = store.keys.access();
    await db.redis.hset(keys.pending, "telegram:old", '{"user":"telegram:old","expiresAt":1}');
    await store.access.issue({ user: "telegram:9" }, "ZZZZZZZZ", 60_000, Date.now());
    expect(await db.redis.hkeys(keys.pending)).toEqual(["telegram:9"]);
  });

  it("answers /access list under 3,000 strangers with one short reply: the count, the newest ten and the next page", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    await strangersWrite(store, 3000);
    const first = await owner(store, "/access list");
    // One message on every platform (Discord's limit is 2,000 characters).
    expect(first.length).toBeLessThan(2000);
    const pages = Math.ceil(MAX_PENDING_REQUESTS / PENDING_PAGE_SIZE);
    expect(first).toContain(
      `Waiting for approval: ${MAX_PENDING_REQUESTS}, newest first, page 1 of ${pages}:`,
    );
    expect(first).toContain("Next: /access list 2.");
    expect(first.match(/^- Stranger \d+ \(telegram:\d+\), code expires in/gm)).toHaveLength(
      PENDING_PAGE_SIZE,
    );

    const second = await owner(store, "/access list 2");
    expect(
      second.startsWith(
        `Waiting for approval: ${MAX_PENDING_REQUESTS}, newest first, page 2 of ${pages}:`,
      ),
    ).toBe(true);
    expect(second).toContain("Next: /access list 3.");
    const rows = (text: string): string[] => text.match(/\(telegram:\d+\)/g) ?? [];
    expect(rows(second)).toHaveLength(PENDING_PAGE_SIZE);
    expect(rows(second).filter((r) => rows(first).includes(r))).toEqual([]);

    const last = await owner(store, `/access list ${pages}`);
    expect(last).not.toContain("Next:");
    expect(await owner(store, `/access list ${pages + 1}`)).toBe(
      `Waiting for approval: ${MAX_PENDING_REQUESTS}; page ${pages + 1} is past the last, ${pages}.`,
    );
    expect(await owner(store, "/access list two")).toBe(
      '"two" is not a page number: e.g. /access list 2.',
    );
  });

  it("lists a short waiting list whole, as before", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    await strangersWrite(store, 2);
    const text = await owner(store, "/access list");
    expect(text).toMatch(
      /Waiting for approval:\n- Stranger \d \(telegram:100\d\), code expires in 1 hour\n- Stranger \d \(telegram:100\d\), code expires in 1 hour$/,
    );
  });
});
