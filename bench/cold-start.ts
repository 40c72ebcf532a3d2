/**
 * The cold start (issue 29): a fresh node importing the built package, as
 * `import("switchyard")` does for a bot's author, and `switchyard --help`
 * from the build, as an installed package runs it, against `node -e 0`
 * (node's own start) in the same run; the source through tsx for
 * reference. Each is a new process: one warm-up round of each (the files
 * in the page cache), then interleaved rounds, order rotated.
 *
 * Then a worker's start, from spawn to ready and its idle RSS, in a table
 * of its own (worker-ready.ts), judged on CPU time too.
 *
 * On a shared machine wall time swings with the neighbours' load; the
 * process's own CPU time (user + system, read by the child at exit) is what
 * a quiet machine's wall time comes to for this single-threaded work, so
 * the targets are judged on it, and both are printed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  startOnce,
  startWorkerFakes,
  WORKER_IDLE_RSS_TARGET_MB,
  WORKER_READY_TARGET_MS,
  type WorkerSample,
  workerCases,
} from "./worker-ready.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 7);
/** The targets, in milliseconds. */
const IMPORT_TARGET_MS = 400;
const HELP_TARGET_MS = 500;

/** Prints the process's CPU time, in microseconds, as its last line on stderr. */
const REPORT_CPU = `process.on("exit", () => { const u = process.cpuUsage(); process.stderr.write("\\ncpu " + (u.user + u.system) + "\\n"); });`;

interface Case {
  readonly name: string;
  readonly args: readonly string[];
  readonly targetMs?: number;
}

const url = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, path)).href);

const CASES: readonly Case[] = [
  { name: "node -e 0 (baseline)", args: ["--input-type=module", "--eval", REPORT_CPU] },
  {
    name: "import('switchyard') from dist/",
    args: ["--input-type=module", "--eval", `${REPORT_CPU} await import(${url("dist/index.js")});`],
    targetMs: IMPORT_TARGET_MS,
  },
  {
    name: "switchyard --help from dist/",
    args: [
      "--input-type=module",
      "--eval",
      `${REPORT_CPU} process.argv = [process.argv[0], "switchyard", "--help"]; await import(${url("dist/cli.js")});`,
    ],
    targetMs: HELP_TARGET_MS,
  },
  {
    name: "import('switchyard') from src/ through tsx",
    args: [
      "--import",
      "tsx/esm",
      "--input-type=module",
      "--eval",
      `${REPORT_CPU} await import(${url("src/index.ts")});`,
    ],
  },
];

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function runOnce(c: Case): Sample {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const start = performance.now();
  const child = spawnSync(process.execPath, c.args, {
    cwd: ROOT,
    env,
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
  });
  const wallMs = performance.now() - start;
  const cpu = /\ncpu (\d+)\n$/.exec(child.stderr ?? "")?.[1];
  if (child.status !== 0 || cpu === undefined) {
    throw new Error(`${c.name} failed (exit ${child.status}): ${child.stderr}`);
  }
  return { wallMs, cpuMs: Number(cpu) / 1_000 };
}

interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    min: sorted[0] ?? Number.NaN,
    median: sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

const ms = (s: Spread) =>
  `${s.min.toFixed(0)}/${s.median.toFixed(0)}/${s.max.toFixed(0)}`.padStart(16);

/**
 * Times each case in fresh processes; returns whether the import and
 * `--help` meet their targets (median CPU time), and the worker its ready
 * time (median wall time) and idle RSS.
 */
export async function benchColdStart(print: (line: string) => void): Promise<boolean> {
  print(
    `\nCold start: fresh node processes, ${ROUNDS} rounds each (load average ${loadavg()[0]?.toFixed(1)}); ms as min/median/max`,
  );
  const missing = ["dist/index.js", "dist/cli.js"].filter((f) => !existsSync(join(ROOT, f)));
  if (missing.length > 0) {
    print(`${missing.join(" and ")} missing: run \`npm run build\` first.`);
    return false;
  }
  if (newestMtime(join(ROOT, "src")) > statSync(join(ROOT, "dist", "index.js")).mtimeMs) {
    print("note: dist/ is older than src/: run `npm run build` to measure the current source.");
  }
  for (const c of CASES) runOnce(c);
  const samples = CASES.map(() => [] as Sample[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < CASES.length; i++) {
      const index = (i + round) % CASES.length;
      (samples[index] as Sample[]).push(runOnce(CASES[index] as Case));
    }
  }
  const baseline = spread((samples[0] as Sample[]).map((s) => s.cpuMs));
  let ok = true;
  print(`${"".padEnd(44)} ${"wall".padStart(16)} ${"cpu".padStart(16)}   vs baseline (cpu)`);
  CASES.forEach((c, index) => {
    const taken = samples[index] as Sample[];
    const wall = spread(taken.map((s) => s.wallMs));
    const cpu = spread(taken.map((s) => s.cpuMs));
    const ratio = `${(cpu.median / baseline.median).toFixed(1)}x`.padStart(7);
    let verdict = "";
    if (c.targetMs !== undefined) {
      const met = cpu.median <= c.targetMs;
      if (!met) ok = false;
      verdict = `  (target <= ${c.targetMs} ms: ${met ? "met" : "MISSED"})`;
    }
    print(`${c.name.padEnd(44)} ${ms(wall)} ${ms(cpu)}   ${ratio}${verdict}`);
  });
  return (await benchWorkerReady(print)) && ok;
}

/**
 * `switchyard start --role worker` from spawn to "worker started", and its
 * RSS once idle. The ready target is judged on the CPU time the worker took
 * to get there, as the rows above are: on a quiet machine that is its wall
 * time, give or take its few round trips to Redis.
 */
async function benchWorkerReady(print: (line: string) => void): Promise<boolean> {
  const cases = workerCases();
  print(
    `\nWorker start: fresh processes, ${ROUNDS} rounds each (load average ${loadavg()[0]?.toFixed(1)}); ms and MB as min/median/max`,
  );
  const fakes = await startWorkerFakes();
  const samples = cases.map(() => [] as WorkerSample[]);
  try {
    for (const c of cases) await startOnce(c, fakes);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < cases.length; i++) {
        const index = (i + round) % cases.length;
        (samples[index] as WorkerSample[]).push(
          await startOnce(cases[index] as (typeof cases)[0], fakes),
        );
      }
    }
  } finally {
    await fakes.close();
  }
  const baseline = spread((samples[0] as WorkerSample[]).map((s) => s.cpuMs));
  let ok = true;
  print(
    `${"".padEnd(44)} ${"wall to ready".padStart(16)} ${"cpu to ready".padStart(16)} ${"idle RSS MB".padStart(16)}   vs baseline (cpu)`,
  );
  cases.forEach((c, index) => {
    const taken = samples[index] as WorkerSample[];
    const wall = spread(taken.map((s) => s.wallMs));
    const cpu = spread(taken.map((s) => s.cpuMs));
    const rss = c.cli === undefined ? "-".padStart(16) : ms(spread(taken.map((s) => s.rssMb)));
    const ratio = `${(cpu.median / baseline.median).toFixed(1)}x`.padStart(7);
    let verdict = "";
    if (c.targets) {
      const fast = cpu.median <= WORKER_READY_TARGET_MS;
      const small = spread(taken.map((s) => s.rssMb)).median <= WORKER_IDLE_RSS_TARGET_MB;
      if (!fast || !small) ok = false;
      verdict = `  (ready <= ${WORKER_READY_TARGET_MS} ms: ${fast ? "met" : "MISSED"}; idle <= ${WORKER_IDLE_RSS_TARGET_MB} MB: ${small ? "met" : "MISSED"})`;
    }
    print(`${c.name.padEnd(44)} ${ms(wall)} ${ms(cpu)} ${rss}   ${ratio}${verdict}`);
  });
  return ok;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
  }
  return newest;
}
