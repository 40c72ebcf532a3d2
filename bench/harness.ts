/**
 * A small benchmark harness for a shared, noisy machine: subject and baseline
 * run interleaved in the same process, batch after batch, and we compare
 * medians, so a neighbour's load hits both sides alike.
 */
export interface Timing {
  /** Median nanoseconds per call. */
  readonly median: number;
  readonly p90: number;
}

export function measurePair(
  subject: () => unknown,
  baseline: () => unknown,
  { batches = 31, minBatchMs = 20 }: { batches?: number; minBatchMs?: number } = {},
): { subject: Timing; baseline: Timing; ratio: number } {
  // Calibrate the calls per batch on the slower side so each batch is long enough to time.
  const perBatch = Math.max(calibrate(subject, minBatchMs), calibrate(baseline, minBatchMs));
  const s: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < batches; i++) {
    // Alternate which side goes first so neither always runs on a warm cache.
    if (i % 2 === 0) {
      s.push(time(subject, perBatch));
      b.push(time(baseline, perBatch));
    } else {
      b.push(time(baseline, perBatch));
      s.push(time(subject, perBatch));
    }
  }
  const subjectTiming = summarize(s);
  const baselineTiming = summarize(b);
  return {
    subject: subjectTiming,
    baseline: baselineTiming,
    ratio: subjectTiming.median / baselineTiming.median,
  };
}

/** {@link measurePair} for work that awaits: each call is awaited before the next starts. */
export async function measurePairAsync(
  subject: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
  { batches = 31, minBatchMs = 20 }: { batches?: number; minBatchMs?: number } = {},
): Promise<{ subject: Timing; baseline: Timing; ratio: number }> {
  const perBatch = Math.max(
    await calibrateAsync(subject, minBatchMs),
    await calibrateAsync(baseline, minBatchMs),
  );
  const s: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < batches; i++) {
    if (i % 2 === 0) {
      s.push(await timeAsync(subject, perBatch));
      b.push(await timeAsync(baseline, perBatch));
    } else {
      b.push(await timeAsync(baseline, perBatch));
      s.push(await timeAsync(subject, perBatch));
    }
  }
  const subjectTiming = summarize(s);
  const baselineTiming = summarize(b);
  return {
    subject: subjectTiming,
    baseline: baselineTiming,
    ratio: subjectTiming.median / baselineTiming.median,
  };
}

let sink: unknown;

function time(fn: () => unknown, n: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink = fn();
  return Number(process.hrtime.bigint() - start) / n;
}

function calibrate(fn: () => unknown, minBatchMs: number): number {
  for (let i = 0; i < 20; i++) sink = fn();
  let n = 1;
  while (n < 1_000_000) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink = fn();
    if (Number(process.hrtime.bigint() - start) / 1e6 >= minBatchMs) return n;
    n *= 2;
  }
  return n;
}

async function timeAsync(fn: () => Promise<unknown>, n: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink = await fn();
  return Number(process.hrtime.bigint() - start) / n;
}

async function calibrateAsync(fn: () => Promise<unknown>, minBatchMs: number): Promise<number> {
  for (let i = 0; i < 20; i++) sink = await fn();
  let n = 1;
  while (n < 1_000_000) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink = await fn();
    if (Number(process.hrtime.bigint() - start) / 1e6 >= minBatchMs) return n;
    n *= 2;
  }
  return n;
}

function summarize(samples: number[]): Timing {
  const sorted = [...samples].sort((x, y) => x - y);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return { median: at(0.5), p90: at(0.9) };
}

export function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(1)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** Keeps the optimizer honest: results flow somewhere observable. */
export function consumed(): unknown {
  return sink;
}
