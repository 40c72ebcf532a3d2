import { afterAll, describe, expect, it } from "vitest";
import { toolActivity } from "../../src/core/delivery/activity.ts";
import { StatusLine, TurnStatus } from "../../src/delivery/turn-status.ts";
import type { DeliveryTarget } from "../../src/ports/outbound.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { createStore } from "../../src/store/index.ts";
import { RecordingOutbound } from "../support/recording-outbound.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

const redis = connectRedis();
const prefix = uniquePrefix("statusline");
const store = createStore(redis, { prefix });
const env = { inbox: new Inbox(redis, store.keys), store };
afterAll(async () => {
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

/** Discord as the status line needs it: posts deduped by key (the nonce), and deletes. */
class LineOutbound extends RecordingOutbound {
  readonly activityLine = true;
  readonly removed: string[] = [];
  /** Posts the platform answered, a repeated key's too. */
  answered = 0;
  override async post(target: DeliveryTarget, text: string, options: { idempotencyKey: string }) {
    const ref = await super.post(target, text, options);
    this.answered++;
    return ref;
  }
  async remove(_target: DeliveryTarget, ref: string) {
    this.removed.push(ref);
  }
}

/** Waits until `probe` holds (a post made, a record written), checking every few milliseconds. */
async function waitFor(probe: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const address = { platform: "discord", workspace: "g", channel: "c1", conversation: "c1" };
const where = { address, target: { ...address, replyTo: "m1" } };

describe("a turn's status line in Redis", () => {
  it("a run that died between storing the line's key and hearing the post back: the resumed run finds the message by its key and deletes it", async () => {
    const outbound = new LineOutbound();
    // The crashed run: its key stored, its post made, its ref never recorded.
    const key = store.keys.turnStatusLine(address, "turn-a");
    await redis.hset(key, "key", "status-crashed");
    const made = await outbound.post(where.target, "Searching the web…", {
      idempotencyKey: "status-crashed",
    });
    const line = await StatusLine.open(env, outbound, where, "turn-a", true);
    await line?.remove();
    expect(outbound.removed).toEqual([made]);
    expect(outbound.calls.filter((c) => c.kind === "post")).toHaveLength(1);
    expect(await redis.exists(key)).toBe(0);
  });

  it("a resumed run that runs a tool again goes on with the line it finds: one post, one delete", async () => {
    const outbound = new LineOutbound();
    const first = await TurnStatus.open(env, outbound, where, { turnId: "turn-b", resumed: false });
    first.tool(toolActivity("web_search", {}))();
    await waitFor(() => outbound.answered === 1);
    first.pause(); // the worker dies here: nothing is cleared
    const second = await TurnStatus.open(env, outbound, where, { turnId: "turn-b", resumed: true });
    second.tool(toolActivity("fetch_url", { url: "https://example.com/x" }))();
    second.pause();
    await second.end();
    const posts = outbound.calls.filter((c) => c.kind === "post");
    expect(posts.map((c) => c.text)).toEqual(["Searching the web…"]);
    // A line of its own: not a reply to the person's message.
    expect(posts[0]?.target.replyTo).toBeUndefined();
    expect(outbound.removed).toEqual([posts[0]?.ref]);
    expect(await redis.exists(store.keys.turnStatusLine(address, "turn-b"))).toBe(0);
  });

  it("a run whose lease lapsed while it was slow, posting after the run that took over read the record: one line, deleted", async () => {
    const outbound = new LineOutbound();
    // The slow run has not posted yet when the run that takes the turn over reads the record.
    const slow = await TurnStatus.open(env, outbound, where, { turnId: "turn-d", resumed: false });
    const taker = await TurnStatus.open(env, outbound, where, { turnId: "turn-d", resumed: true });
    slow.tool(toolActivity("web_search", {}))();
    taker.tool(toolActivity("web_search", {}))();
    await waitFor(() => outbound.answered === 2);
    slow.pause(); // it learns its lease is gone: it clears nothing
    taker.pause();
    await taker.end();
    const made = [...new Set(outbound.calls.filter((c) => c.kind === "post").map((c) => c.ref))];
    expect(made).toHaveLength(1);
    expect(outbound.removed).toEqual(made);
    expect(await redis.exists(store.keys.turnStatusLine(address, "turn-d"))).toBe(0);
  });

  it("a run whose lease lapsed hears its post back after the run that took over deleted the line: no record comes back", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The slow run's post reaches the platform; its answer comes back late.
    class SlowAnswer extends LineOutbound {
      #first = true;
      override async post(
        target: DeliveryTarget,
        text: string,
        options: { idempotencyKey: string },
      ) {
        const ref = await super.post(target, text, options);
        if (this.#first) {
          this.#first = false;
          await held;
        }
        return ref;
      }
    }
    const outbound = new SlowAnswer();
    const slow = await TurnStatus.open(env, outbound, where, { turnId: "turn-e", resumed: false });
    slow.tool(toolActivity("web_search", {}))();
    await waitFor(() => outbound.calls.some((c) => c.kind === "post"));
    const taker = await TurnStatus.open(env, outbound, where, { turnId: "turn-e", resumed: true });
    taker.tool(toolActivity("web_search", {}))();
    taker.pause();
    await taker.end();
    expect(outbound.removed).toHaveLength(1);
    release();
    slow.pause();
    // Its record gone, the slow run deletes what its post made (here the same message).
    await waitFor(() => outbound.removed.length === 2);
    expect(await redis.exists(store.keys.turnStatusLine(address, "turn-e"))).toBe(0);
  });

  it("a run whose lease lapsed hears its post back while the run that took over is deleting the line: nothing stays", async () => {
    let arrive = () => {};
    const held = new Promise<void>((resolve) => {
      arrive = resolve;
    });
    let deleting = () => {};
    const deleted = new Promise<void>((resolve) => {
      deleting = resolve;
    });
    /**
     * The slow run's post reaches the platform only after the line was deleted, and the
     * platform makes it anew (a deleted message's nonce makes a new one, as on Discord).
     * The run that took over is held between deleting the message and its record.
     */
    class LatePost extends LineOutbound {
      #first = true;
      readonly #byKey = new Map<string, string>();
      #next = 1;
      override async post(
        _target: DeliveryTarget,
        text: string,
        { idempotencyKey }: { idempotencyKey: string },
      ) {
        if (this.#first) {
          this.#first = false;
          await held;
        }
        const existing = this.#byKey.get(idempotencyKey);
        if (existing) return existing;
        const ref = `late-${this.#next++}`;
        this.#byKey.set(idempotencyKey, ref);
        this.calls.push({
          kind: "post",
          at: Date.now(),
          text,
          ref,
          key: idempotencyKey,
          target: where.target,
        });
        return ref;
      }
      override async remove(target: DeliveryTarget, ref: string) {
        await super.remove(target, ref);
        for (const [key, made] of this.#byKey) if (made === ref) this.#byKey.delete(key);
        if (this.removed.length === 1) {
          deleting();
          await shown(); // the record stands until the late post was heard back
        }
      }
    }
    const outbound = new LatePost();
    const key = store.keys.turnStatusLine(address, "turn-f");
    const slow = await TurnStatus.open(env, outbound, where, { turnId: "turn-f", resumed: false });
    slow.tool(toolActivity("web_search", {}))();
    await waitFor(async () => (await redis.hget(key, "key")) !== null);
    const taker = await TurnStatus.open(env, outbound, where, { turnId: "turn-f", resumed: true });
    taker.tool(toolActivity("web_search", {}))();
    await waitFor(() => outbound.calls.some((c) => c.kind === "post"));
    taker.pause();
    /** The late post came back: its message deleted, or its ref recorded (kept). */
    const shown = () =>
      waitFor(
        async () => outbound.removed.length === 2 || (await redis.hget(key, "ref")) === "late-2",
      );
    const ended = taker.end();
    await deleted;
    arrive();
    await ended;
    slow.pause();
    const made = outbound.calls.filter((c) => c.kind === "post").map((c) => c.ref);
    expect(made).toEqual(["late-1", "late-2"]);
    expect(outbound.removed).toEqual(made);
    expect(await redis.exists(key)).toBe(0);
  });

  it("a turn whose lease is lost leaves its line to the run that took it over", async () => {
    const outbound = new LineOutbound();
    const lease = new AbortController();
    const status = await TurnStatus.open(env, outbound, where, {
      turnId: "turn-c",
      resumed: false,
      signal: lease.signal,
    });
    status.tool(toolActivity("web_search", {}))();
    const key = store.keys.turnStatusLine(address, "turn-c");
    await waitFor(async () => (await redis.hget(key, "ref")) !== null);
    lease.abort();
    status.pause();
    await status.end();
    expect(outbound.removed).toEqual([]);
    const taken = await StatusLine.open(env, outbound, where, "turn-c", true);
    await taken?.remove();
    expect(outbound.removed).toHaveLength(1);
  });
});
