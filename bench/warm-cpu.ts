/**
 * CPU per warm turn, quickly: a Switchyard process answers N conversations
 * twice to warm up, then BATCHES more times, and prints this process's CPU
 * (user + system) per turn for each batch. With PROF=<file> it writes a CPU
 * profile of the measured batches (HEAP=1: a sampling heap profile, counting
 * collected objects too), for `--cpu-prof`-style reading without the start-up.
 *
 *   REDIS_URL=redis://127.0.0.1:6392 N=1000 BATCHES=4 npx tsx bench/warm-cpu.ts
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { cleanup, startSwitchyardSide } from "./pipeline-runs.ts";

const N = Number(process.env.N ?? 500);
const BATCHES = Number(process.env.BATCHES ?? 4);
const prefix = `sywarm-${Date.now()}`;
const side = await startSwitchyardSide(prefix, {
  conversations: N,
  concurrency: 16,
  tools: 10,
  history: Number(process.env.HISTORY ?? 0),
});
await side.sendAll(0, N);
await side.sendAll(0, N);

const session = process.env.PROF ? new Session() : undefined;
const heap = process.env.HEAP === "1";
if (session) {
  session.connect();
  if (heap) {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  } else {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    await session.post("Profiler.start");
  }
}
const perTurn: number[] = [];
for (let b = 0; b < BATCHES; b++) {
  const cpu = process.cpuUsage();
  await side.sendAll(0, N);
  const used = process.cpuUsage(cpu);
  perTurn.push((used.user + used.system) / N);
}
if (session && process.env.PROF) {
  const { profile } = heap
    ? await session.post("HeapProfiler.stopSampling")
    : await session.post("Profiler.stop");
  writeFileSync(process.env.PROF, JSON.stringify(profile));
}
await side.close();
await cleanup(prefix);
console.log(
  `cpu µs/turn: ${perTurn.map((x) => x.toFixed(0)).join(" ")}  min ${Math.min(...perTurn).toFixed(0)}`,
);
process.exit(0);
