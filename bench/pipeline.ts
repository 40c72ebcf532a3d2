/**
 * The pipeline bench: Switchyard turns against bare BullMQ jobs on the same
 * Redis, warm, in interleaved rounds (order rotated), with a second baseline
 * that makes a turn's durable writes in one script a side; then the Redis
 * round trips on one turn's path, and how CPU per turn scales with history,
 * registry size, conversations and concurrency.
 */
import { randomUUID } from "node:crypto";
import {
  cleanup,
  measuredRun,
  REDIS_URL,
  type RunCost,
  type RunShape,
  type Side,
  type SwitchyardRun,
  startBare,
  startSwitchyardSide,
  switchyardRun,
} from "./pipeline-runs.ts";
import { startRoundTripProxy } from "./round-trips.ts";

const BASE: RunShape = {
  conversations: 1_000,
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 16),
  tools: 10,
  history: 0,
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP_ROUNDS = 1;
const SEQUENTIAL_TURNS = 30;

/** The targets of issue 20, on medians over the rounds. */
const TARGETS = {
  ratio: 0.35,
  turnsPerCpuSecond: 4_000,
  commands: 45,
  roundTrips: 6,
  historyScaling: 1.3,
  registryScaling: 1.3,
  overheadP99Ms: 10,
};

/** min / median / max of a figure over the rounds. */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

export interface PipelineFigures {
  readonly shape: RunShape;
  readonly rounds: number;
  readonly bare: { perSecond: Spread; cpuMicros: Spread; commands: Spread };
  readonly durableFloor: { perSecond: Spread; cpuMicros: Spread; commands: Spread };
  readonly switchyard: {
    perSecond: Spread;
    cpuMicros: Spread;
    turnsPerCpuSecond: Spread;
    commands: Spread;
    overheadP50Ms: Spread;
    overheadP99Ms: Spread;
  };
  readonly ratioToBare: Spread;
  readonly ratioToDurableFloor: Spread;
  readonly roundTrips: { bare: number; durableFloor: number; switchyard: number };
  readonly scaling: readonly {
    readonly label: string;
    readonly cpuMicros: number;
    readonly vsFirst: number;
  }[];
  readonly targets: Readonly<
    Record<string, { readonly value: number; readonly target: string; readonly met: boolean }>
  >;
}

function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    min: sorted[0] ?? Number.NaN,
    median: sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

const runId = () => randomUUID().slice(0, 8);

/** One round of each side, in an order that rotates with the round. */
async function round(
  index: number,
  prefixes: string[],
): Promise<{ bare: RunCost; floor: RunCost; sy: SwitchyardRun }> {
  const sides = ["bare", "floor", "sy"] as const;
  const out: Partial<{ bare: RunCost; floor: RunCost; sy: SwitchyardRun }> = {};
  for (let k = 0; k < sides.length; k++) {
    const side = sides[(k + index) % sides.length] as (typeof sides)[number];
    const prefix = `sybench-${side}-${runId()}`;
    prefixes.push(prefix);
    if (side === "sy") out.sy = await switchyardRun(prefix, BASE);
    else out[side] = await measuredRun(await startBare(prefix, BASE, side === "floor"), BASE);
  }
  return out as { bare: RunCost; floor: RunCost; sy: SwitchyardRun };
}

/** Ordered round trips per message: one message at a time, through a proxy that counts them. */
async function roundTrips(prefixes: string[]): Promise<PipelineFigures["roundTrips"]> {
  const target = new URL(REDIS_URL);
  const proxy = await startRoundTripProxy({
    host: target.hostname,
    port: Number(target.port || 6379),
  });
  const sequential: RunShape = { ...BASE, conversations: SEQUENTIAL_TURNS + 1 };
  const count = async (side: Side): Promise<number> => {
    try {
      await side.sendAll(0, 1); // the first message loads scripts and warms the connections
      proxy.reset();
      for (let i = 1; i <= SEQUENTIAL_TURNS; i++) {
        await side.sendAll(i, 1);
        // A turn reports before its inbox trim; let the trim land, so each message is a job of its own.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return proxy.count() / SEQUENTIAL_TURNS;
    } finally {
      await side.close();
    }
  };
  const prefix = (label: string) => {
    const p = `sybench-rt-${label}-${runId()}`;
    prefixes.push(p);
    return p;
  };
  try {
    return {
      bare: await count(await startBare(prefix("bare"), sequential, false, proxy.url)),
      durableFloor: await count(await startBare(prefix("floor"), sequential, true, proxy.url)),
      switchyard: await count(await startSwitchyardSide(prefix("sy"), sequential, proxy.url)),
    };
  } finally {
    await proxy.close();
  }
}

/**
 * CPU per turn as one thing changes from the base run; each row against the
 * first of its group. Measured on each conversation's second turn, the way
 * most turns of a conversation run.
 */
async function scaling(prefixes: string[]): Promise<PipelineFigures["scaling"]> {
  const groups: { name: string; shapes: [string, RunShape][] }[] = [
    {
      name: "history",
      shapes: [1, 50, 200].map((n) => [`history ${n} messages`, { ...BASE, history: n }]),
    },
    {
      name: "registry",
      shapes: [10, 200].map((n) => [`registry ${n} tools`, { ...BASE, tools: n }]),
    },
    {
      name: "conversations",
      shapes: [1_000, 10_000].map((n) => [
        `conversations ${n.toLocaleString("en-US")}`,
        { ...BASE, conversations: n },
      ]),
    },
    {
      name: "concurrency",
      shapes: [8, 64].map((n) => [`concurrency ${n}`, { ...BASE, concurrency: n }]),
    },
  ];
  const rows: { label: string; cpuMicros: number; vsFirst: number }[] = [];
  for (const group of groups) {
    let first: number | undefined;
    for (const [label, shape] of group.shapes) {
      const prefix = `sybench-scale-${runId()}`;
      prefixes.push(prefix);
      const { cpuMicros } = await switchyardRun(prefix, shape, true);
      first ??= cpuMicros;
      rows.push({ label, cpuMicros, vsFirst: cpuMicros / first });
    }
  }
  return rows;
}

const fmt = (s: Spread, digits = 0) =>
  `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)}`;

/** Runs the whole pipeline bench; prints as it goes and returns the figures. */
export async function measurePipeline(print: (line: string) => void): Promise<PipelineFigures> {
  const prefixes: string[] = [];
  try {
    for (let w = 0; w < WARMUP_ROUNDS; w++) await round(w, prefixes);
    const rounds: Awaited<ReturnType<typeof round>>[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(r, prefixes));
    const of = <T>(pick: (r: (typeof rounds)[number]) => T) => rounds.map(pick);
    const trips = await roundTrips(prefixes);
    const scaled = await scaling(prefixes);
    const figures: Omit<PipelineFigures, "targets"> = {
      shape: BASE,
      rounds: ROUNDS,
      bare: {
        perSecond: spread(of((r) => r.bare.perSecond)),
        cpuMicros: spread(of((r) => r.bare.cpuMicros)),
        commands: spread(of((r) => r.bare.commands)),
      },
      durableFloor: {
        perSecond: spread(of((r) => r.floor.perSecond)),
        cpuMicros: spread(of((r) => r.floor.cpuMicros)),
        commands: spread(of((r) => r.floor.commands)),
      },
      switchyard: {
        perSecond: spread(of((r) => r.sy.perSecond)),
        cpuMicros: spread(of((r) => r.sy.cpuMicros)),
        turnsPerCpuSecond: spread(of((r) => 1e6 / r.sy.cpuMicros)),
        commands: spread(of((r) => r.sy.commands)),
        overheadP50Ms: spread(of((r) => percentile(r.sy.overhead, 0.5))),
        overheadP99Ms: spread(of((r) => percentile(r.sy.overhead, 0.99))),
      },
      ratioToBare: spread(of((r) => r.sy.perSecond / r.bare.perSecond)),
      ratioToDurableFloor: spread(of((r) => r.sy.perSecond / r.floor.perSecond)),
      roundTrips: trips,
      scaling: scaled,
    };
    const row = (label: string) => scaled.find((s) => s.label === label)?.vsFirst ?? Number.NaN;
    const targets = {
      ratio: check(
        figures.ratioToBare.median,
        `>= ${TARGETS.ratio * 100}%`,
        (v) => v >= TARGETS.ratio,
      ),
      turnsPerCpuSecond: check(
        figures.switchyard.turnsPerCpuSecond.median,
        `>= ${TARGETS.turnsPerCpuSecond}`,
        (v) => v >= TARGETS.turnsPerCpuSecond,
      ),
      commands: check(
        figures.switchyard.commands.median,
        `<= ${TARGETS.commands}`,
        (v) => v <= TARGETS.commands,
      ),
      roundTrips: check(
        trips.switchyard,
        `<= ${TARGETS.roundTrips}`,
        (v) => v <= TARGETS.roundTrips,
      ),
      historyScaling: check(
        row("history 200 messages"),
        `<= ${TARGETS.historyScaling}x`,
        (v) => v <= TARGETS.historyScaling,
      ),
      registryScaling: check(
        row("registry 200 tools"),
        `<= ${TARGETS.registryScaling}x`,
        (v) => v <= TARGETS.registryScaling,
      ),
      overheadP99Ms: check(
        figures.switchyard.overheadP99Ms.median,
        `<= ${TARGETS.overheadP99Ms} ms`,
        (v) => v <= TARGETS.overheadP99Ms,
      ),
    };
    printFigures(print, { ...figures, targets });
    return { ...figures, targets };
  } finally {
    for (const prefix of prefixes) await cleanup(prefix);
  }
}

function check(value: number, target: string, ok: (v: number) => boolean) {
  return { value, target, met: ok(value) };
}

function printFigures(print: (line: string) => void, f: PipelineFigures): void {
  const met = (key: string) => {
    const t = f.targets[key];
    return t ? `(target ${t.target}: ${t.met ? "met" : "MISSED"})` : "";
  };
  print("");
  print(
    `Pipeline: ${f.shape.conversations} conversations, ${f.shape.tools} tools, one tool call per turn, instant model, concurrency ${f.shape.concurrency}`,
  );
  print(
    `${WARMUP_ROUNDS} warm-up round discarded, then ${f.rounds} rounds, order rotated; min / median / max`,
  );
  print(`bare BullMQ            ${fmt(f.bare.perSecond)} jobs/s   (add -> process -> complete)`);
  print(
    `bare + durable writes  ${fmt(f.durableFloor.perSecond)} jobs/s   (the same, and a turn's writes in one script a side)`,
  );
  print(`Switchyard             ${fmt(f.switchyard.perSecond)} turns/s`);
  const pct = (s: Spread) =>
    `${(s.min * 100).toFixed(1)}% / ${(s.median * 100).toFixed(1)}% / ${(s.max * 100).toFixed(1)}%`;
  print(`ratio to bare          ${pct(f.ratioToBare)}  ${met("ratio")}`);
  print(`ratio to durable floor ${pct(f.ratioToDurableFloor)}`);
  print(
    `CPU per message        bare ${fmt(f.bare.cpuMicros)} µs; floor ${fmt(f.durableFloor.cpuMicros)} µs; Switchyard ${fmt(f.switchyard.cpuMicros)} µs`,
  );
  print(
    `turns per CPU-second   ${fmt(f.switchyard.turnsPerCpuSecond)}  ${met("turnsPerCpuSecond")}`,
  );
  print(
    `Redis commands/message bare ${fmt(f.bare.commands, 1)}; floor ${fmt(f.durableFloor.commands, 1)}; Switchyard ${fmt(f.switchyard.commands, 1)}  ${met("commands")}`,
  );
  print(
    `round trips/message    bare ${f.roundTrips.bare.toFixed(1)}; floor ${f.roundTrips.durableFloor.toFixed(1)}; Switchyard ${f.roundTrips.switchyard.toFixed(1)}  ${met("roundTrips")}  (one at a time, ${SEQUENTIAL_TURNS} messages)`,
  );
  print(
    `framework overhead    p50 ${fmt(f.switchyard.overheadP50Ms, 1)} ms   p99 ${fmt(f.switchyard.overheadP99Ms, 1)} ms  ${met("overheadP99Ms")}`,
  );
  print("");
  print(
    "CPU per turn as one thing changes (µs, a conversation's second turn; against the first row of its group)",
  );
  for (const s of f.scaling) {
    const key = s.label.startsWith("history 200")
      ? "historyScaling"
      : s.label.startsWith("registry 200")
        ? "registryScaling"
        : "";
    print(
      `${s.label.padEnd(24)} ${s.cpuMicros.toFixed(0).padStart(6)} µs   ${s.vsFirst.toFixed(2)}x  ${key ? met(key) : ""}`,
    );
  }
}

/** The bench as `npm run bench` runs it: returns whether every target holds. */
export async function benchPipeline(
  print: (line: string) => void,
  collect?: (figures: PipelineFigures) => void,
): Promise<boolean> {
  const figures = await measurePipeline(print);
  collect?.(figures);
  return Object.values(figures.targets).every((t) => t.met);
}
