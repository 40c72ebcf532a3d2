import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAOS } from "../support/chaos-knobs.ts";
import { CLEAN_VERDICT, verdict } from "../support/chaos-ledger.ts";
import { FaultyRedis } from "../support/chaos-redis.ts";
import { ChaosScenario } from "../support/chaos-scenario.ts";
import { type TelegramChaos, telegramChaos } from "../support/chaos-telegram.ts";
import type { SwitchyardProcess } from "../support/switchyard-process.ts";

/**
 * The most lines one worker may log in any one second while Redis refuses
 * writes. A worker that backs off logs a few; one that spins on the error
 * logs thousands and fills the disk of whoever runs it.
 */
const WORKER_LOG_LINES_PER_SECOND = 20;
/** How long Redis refuses writes: past the 15 s Telegram polling once gave up after. */
const OOM_MS = 20_000;

const redis = new FaultyRedis();
let telegram: TelegramChaos;
let scenario: ChaosScenario;
let next = 0;
/** Messages per phase: half the run's, at least one conversation of four. */
const PER_PHASE = Math.max(4, Math.floor(CHAOS.messages / 2));

beforeAll(async () => {
  await redis.start();
  telegram = await telegramChaos(CHAOS.platformDelayMs);
  scenario = new ChaosScenario(telegram, {
    name: "redis",
    redisUrl: redis.url,
    messages: PER_PHASE,
    workers: 2,
    maxKills: 0,
  });
  await scenario.start();
}, 120_000);

afterAll(async () => {
  await scenario?.close();
  await telegram?.close();
  await redis.stop();
});

/** Sends one phase's messages while `fault` runs, then waits for the answers and counts. */
async function phase(name: string, gapMs: [number, number], fault: () => Promise<void>) {
  const plan = scenario.plan(PER_PHASE, next);
  next += plan.size;
  await Promise.all([scenario.sendAll(plan, gapMs), fault()]);
  await scenario.settle(plan.keys());
  return { plan, ...scenario.report(name, plan.keys()) };
}

/** The most lines any of these processes wrote in one second between `from` and `to`. */
function peakLinesPerSecond(processes: readonly SwitchyardProcess[], from: number, to: number) {
  let peak = 0;
  for (const p of processes) {
    const perSecond = new Map<number, number>();
    for (const line of p.lines()) {
      if (line.at < from || line.at > to) continue;
      const second = Math.floor(line.at / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    peak = Math.max(peak, ...perSecond.values());
  }
  return peak;
}

describe("Redis faults under a stream of Telegram messages", () => {
  it("loses and doubles nothing while Redis is frozen for 4 s", async () => {
    const { counts, line } = await phase("redis-frozen", [300, 1_500], async () => {
      await sleep(1_500);
      await redis.freeze(4_000);
    });
    expect(verdict(counts), `${line}\n${counts.details.join("\n")}`).toEqual(CLEAN_VERDICT);
  }, 90_000);

  it("loses and doubles nothing when Redis is killed and restarted on its port", async () => {
    const { counts, line } = await phase("redis-restart", [300, 1_500], async () => {
      await sleep(1_500);
      await redis.restart(1_500);
    });
    expect(verdict(counts), `${line}\n${counts.details.join("\n")}`).toEqual(CLEAN_VERDICT);
  }, 90_000);

  it("loses nothing and keeps its logs quiet while Redis refuses writes for 20 s", async () => {
    let from = 0;
    let to = 0;
    const { counts, line } = await phase("redis-oom", [2_000, 6_000], async () => {
      await sleep(1_000);
      await redis.refuseWrites();
      from = Date.now();
      await sleep(OOM_MS);
      to = Date.now();
      await redis.heal();
    });
    const workers = peakLinesPerSecond(scenario.fleet.everyone, from, to);
    const ingress = peakLinesPerSecond(scenario.ingress, from, to);
    const logs = `${line}; during the OOM window a worker logged at most ${workers} lines/s, ingress ${ingress}`;
    console.log(logs);
    expect(verdict(counts), `${logs}\n${counts.details.join("\n")}`).toEqual(CLEAN_VERDICT);
    expect(workers, logs).toBeLessThanOrEqual(WORKER_LOG_LINES_PER_SECOND);
  }, 120_000);
});
