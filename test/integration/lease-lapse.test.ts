import { afterEach, describe, expect, it } from "vitest";
import { Inbox } from "../../src/store/inbox.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

let pipe: Pipeline | undefined;
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
});

describe("a lease that runs out while nobody else holds it", () => {
  it("is taken again by the same job, and the turn still gets its one answer", async () => {
    pipe = await startPipeline({ leaseMs: 1_500 });
    // The first model call hangs; while it does, the lease vanishes the way it does when
    // Redis was killed and restarted for longer than the lease (its TTL ran out meanwhile).
    let asked = 0;
    pipe.fake.setResponder(() =>
      ++asked === 1 ? { content: "too late", delayMs: 60_000 } : { content: "Here you are." },
    );
    const message = pipe.message("are you there?");
    await pipe.app.queue.enqueue(message);
    const inbox = new Inbox(pipe.app.redis, new KeyScheme(pipe.prefix));
    const lease = inbox.keysOf(message).lease;
    const deadline = Date.now() + 15_000;
    while (asked < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(asked).toBe(1);
    await pipe.app.redis.del(lease);

    const posts = await pipe.posts(1, 20_000);
    expect(posts.map((p) => p.text)).toEqual(["Here you are."]);
    // The turn ends a moment after its post (how long is up to the machine): wait for the
    // inbox to go idle rather than betting it did within the second that a duplicate gets.
    const idleBy = Date.now() + 15_000;
    while (!(await inbox.idle(message)) && Date.now() < idleBy) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await inbox.idle(message)).toBe(true);
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await pipe.posts(1)).length).toBe(1);
  }, 40_000);
});
