import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/core/agent/checkpoint.ts";
import type { ApprovalWait } from "../../src/core/approvals/approval.ts";
import { approves } from "../../src/core/approvals/outcome.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import type { ApprovalClick, ClickAnswer } from "../../src/ports/approvals.ts";
import { ApprovalDesk } from "../../src/queue/approval-desk.ts";
import { createStore, newApprovalId } from "../../src/store/index.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("approval-property");

const address: ConversationAddress = {
  platform: "slack",
  workspace: "T1",
  channel: "C1",
  conversation: "prop",
};

/** Something that happens to a pending request: a click (maybe a replay), /stop, the clock. */
type Event =
  | {
      readonly kind: "click";
      readonly who: "requester" | "admin" | "stranger";
      readonly choice: ApprovalClick["choice"];
      readonly replays: number;
    }
  | { readonly kind: "stop" }
  | { readonly kind: "expire" };

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  fc.record({
    kind: fc.constant("click" as const),
    who: fc.constantFrom("requester" as const, "admin" as const, "stranger" as const),
    choice: fc.constantFrom("approve" as const, "approve_conversation" as const, "deny" as const),
    replays: fc.integer({ min: 0, max: 2 }),
  }),
  fc.constant({ kind: "stop" as const }),
  fc.constant({ kind: "expire" as const }),
);

/** Where a resumed run of the turn dies: before it claims a call, after it claimed one, or not at all. */
const crashArb = fc.array(fc.constantFrom("before-claim" as const, "after-claim" as const), {
  maxLength: 3,
});

const actors = {
  requester: { id: "slack:U1", isPlatformAdmin: false },
  admin: { id: "slack:U2", isPlatformAdmin: true },
  stranger: { id: "slack:U3", isPlatformAdmin: false },
};

describe("an approval request, whatever happens to it", () => {
  it("gives each pending call exactly one outcome, and runs an approved call once", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArb, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        crashArb,
        fc.integer({ min: 1, max: 3 }),
        async (events, together, crashes, callCount) => {
          round++;
          const store = createStore(db.redis, { prefix: `${db.prefix}-${round}` });
          const wakes: string[] = [];
          const desk = new ApprovalDesk({
            store,
            queue: { wake: async (_a, w) => void wakes.push(w.jobId) },
            config: () => EMPTY_CONFIG,
          });
          const id = newApprovalId();
          const calls = Array.from({ length: callCount }, (_, i) => ({
            callId: `c${i}`,
            tool: "deploy",
            arguments: "{}",
          }));
          const wait: ApprovalWait = {
            id,
            step: 1,
            calls,
            requester: { user: "U1", name: "Alice" },
            requestedAt: Date.now(),
            expiresAt: Date.now() + 60_000,
          };
          const checkpoint: Checkpoint = {
            v: 1,
            turnId: `t${round}`,
            step: 1,
            historyStart: 0,
            inboxCount: 1,
            contractHash: "h",
            loaded: [],
            delivered: [],
            approval: wait,
          };
          await store.approvals.index(id, address, 60_000);
          await store.turns.writeCheckpoint(address, checkpoint);

          // The events, one after another or all at once (clicks on different ingresses).
          const happen = async (
            event: Event,
          ): Promise<{ who?: string; answers: ClickAnswer[] }> => {
            if (event.kind === "stop") {
              await desk.cancel(address);
              return { answers: [] };
            }
            if (event.kind === "expire") {
              await store.approvals.decide(address, id, { verdict: "expired", at: Date.now() });
              return { answers: [] };
            }
            const click = {
              id,
              choice: event.choice,
              actor: actors[event.who],
              platform: "slack",
            };
            const answers: ClickAnswer[] = [];
            for (let i = 0; i <= event.replays; i++) answers.push(await desk.decide(click));
            return { who: event.who, answers };
          };
          const results = together
            ? await Promise.all(events.map(happen))
            : await events.reduce<Promise<Awaited<ReturnType<typeof happen>>[]>>(
                async (done, e) => [...(await done), await happen(e)],
                Promise.resolve([]),
              );

          // Strangers change nothing; at most one person's click is the decision.
          for (const r of results) {
            if (r.who === "stranger") for (const a of r.answers) expect(a.kind).toBe("refused");
          }
          const recordedBy = new Set(
            results.filter((r) => r.answers.some((a) => a.kind === "recorded")).map((r) => r.who),
          );
          expect(recordedBy.size).toBeLessThanOrEqual(1);
          // A replay is answered as the click it repeats.
          for (const r of results) {
            if (r.answers.length > 0) expect(new Set(r.answers.map((a) => a.kind)).size).toBe(1);
          }

          // The worker resumes (nobody decided: the clock decides), dying as the crashes say.
          const first = (await store.approvals.read(address, id)).decision;
          const clock = first
            ? undefined
            : await store.approvals.decide(address, id, { verdict: "expired", at: Date.now() });
          const decision = first ?? (clock && "decision" in clock ? clock.decision : undefined);
          if (!decision) throw new Error("no decision");
          const runs = new Map<string, number>();
          const outcomes = new Map<string, string>();
          for (let attempt = 0; ; attempt++) {
            const crash = crashes[attempt];
            const answered: [string, string][] = [];
            let died = false;
            for (const call of calls) {
              if (!approves(decision)) {
                answered.push([call.callId, decision.verdict]);
                continue;
              }
              if (crash === "before-claim") {
                died = true;
                break;
              }
              if (!(await store.approvals.claim(address, id, call.callId))) {
                answered.push([call.callId, "stopped"]);
                continue;
              }
              runs.set(call.callId, (runs.get(call.callId) ?? 0) + 1);
              if (crash === "after-claim") {
                died = true;
                break;
              }
              answered.push([call.callId, "ran"]);
            }
            if (died) continue;
            // The step's commit: every call's result at once.
            for (const [callId, outcome] of answered) {
              expect(outcomes.has(callId)).toBe(false);
              outcomes.set(callId, outcome);
            }
            break;
          }
          expect([...outcomes.keys()].sort()).toEqual(calls.map((c) => c.callId).sort());
          for (const call of calls) {
            expect(runs.get(call.callId) ?? 0).toBe(approves(decision) ? 1 : 0);
          }
          if (recordedBy.size === 1)
            expect(approves(decision) || decision.verdict === "denied").toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
