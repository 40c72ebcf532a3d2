import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { sleepOrLose } from "../../src/turn/quiet-window.ts";
import { LostLeaseError } from "../../src/turn/turn-environment.ts";

describe("waiting out a quiet window on the lease", () => {
  it("leaves no listener on the lease after each wait, however many windows a drain waits", async () => {
    const lease = new AbortController();
    for (let i = 0; i < 30; i++) await sleepOrLose(1, lease.signal);

    expect(getEventListeners(lease.signal, "abort")).toHaveLength(0);
  });

  it("ends at once when the lease is lost, with the error that says so", async () => {
    const lease = new AbortController();
    const waiting = sleepOrLose(60_000, lease.signal);
    lease.abort();

    await expect(waiting).rejects.toBeInstanceOf(LostLeaseError);
    expect(getEventListeners(lease.signal, "abort")).toHaveLength(0);
  });
});
