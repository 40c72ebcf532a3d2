/**
 * What the benches that count a calling side's CPU share
 * (bench/telegram-calls.ts, bench/model-calls.ts): a fake in a child process,
 * so that `process.cpuUsage` here is the caller's alone; calls made many at
 * once; and the sides taking turns, in a changing order, in the same run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

/** min / median / max of some samples. */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

export function spread(xs: readonly number[]): Spread {
  const sorted = [...xs].sort((a, b) => a - b);
  return { min: sorted[0] ?? 0, median: sorted[sorted.length >> 1] ?? 0, max: sorted.at(-1) ?? 0 };
}

/** A fake started from `script` (beside this file), its address on its first line of stdout; it ends when its stdin closes. */
export async function startFakeProcess(
  script: string,
  args: readonly string[],
): Promise<{ address: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(new URL(script, import.meta.url)), ...args],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return {
    address: line.toString().trim(),
    async stop() {
      child.stdin?.end();
      await once(child, "exit");
    },
  };
}

/** CPU µs a call of this process: `total` calls of `call`, `inFlight` at a time. */
export async function cpuPerCall(
  total: number,
  inFlight: number,
  call: (at: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next < total) await call(next++);
  };
  const start = process.cpuUsage();
  await Promise.all(Array.from({ length: inFlight }, lane));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / total;
}

/**
 * Each side's `round` after one round of warm-up each, `rounds` times, the
 * sides in a changing order; the spread of each side's figures, and the
 * median's ratio to the first side's printed beside it.
 */
export async function compareSides<S>(
  sides: readonly (readonly [name: string, side: S])[],
  rounds: number,
  round: (side: S) => Promise<number>,
  print: (line: string) => void,
  unit: string,
): Promise<Spread[]> {
  for (const [, side] of sides) await round(side);
  const samples = sides.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (k + r) % sides.length;
      samples[i]?.push(await round((sides[i] as (typeof sides)[number])[1]));
    }
  }
  const spreads = samples.map(spread);
  const base = spreads[0]?.median ?? 1;
  const width = Math.max(...sides.map(([name]) => name.length)) + 2;
  for (const [i, [name]] of sides.entries()) {
    const s = spreads[i] as Spread;
    const n = (x: number) => x.toFixed(0).padStart(5);
    print(
      `${name.padEnd(width)}${unit}: min ${n(s.min)}  median ${n(s.median)}  max ${n(s.max)}  ${(s.median / base).toFixed(2)}x`,
    );
  }
  return spreads;
}
