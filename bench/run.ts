/**
 * `npm run bench`: every benchmark, each printing ratios against a baseline
 * measured in the same run. Exits non-zero when a target is missed.
 * `npm run bench -- pipeline` runs one (`-- cache`: the prompt cache when a
 * tool goes on -> ask -> on); `--json` prints the pipeline's
 * figures as JSON on stdout (the text goes to stderr), with where and how
 * they were measured, and `--json=FILE` writes them to FILE;
 * `npm run bench:readme` turns that file into the performance section of
 * docs/internals/performance.md. `npm run bench -- streams` (only when
 * named: it runs for minutes) is the load test of many streamed answers at
 * once (streams.ts; `--n=50,200 --runs=1` shortens it), and with
 * `--json=bench/results/streams.json` feeds the page's streams table.
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg, release, type } from "node:os";
import { Redis } from "ioredis";
import { benchColdStart } from "./cold-start.ts";
import { benchFreeze, benchModeTokens } from "./core.ts";
import { benchFormat } from "./format.ts";
import { benchModelCalls } from "./model-calls.ts";
import { benchPipeline, type PipelineFigures } from "./pipeline.ts";
import { REDIS_URL } from "./pipeline-runs.ts";
import { benchPromptCache } from "./prompt-cache.ts";
import { benchAnthropicPromptCache } from "./prompt-cache-anthropic.ts";
import type { BenchRun } from "./readme-section.ts";
import { benchRealTokens } from "./real-registry.ts";
import { benchStreamRead } from "./stream-read.ts";
import { benchStreamRender } from "./stream-render.ts";
import { benchStreams, type StreamsFigures } from "./streams.ts";
import { benchTelegramCalls } from "./telegram-calls.ts";
import { benchTracing } from "./tracing.ts";

const args = process.argv.slice(2);
const jsonArg = args.find((a) => a === "--json" || a.startsWith("--json="));
const json = jsonArg !== undefined;
/** `--json=FILE` writes the JSON there (npm's own banner would be on stdout with `> FILE`). */
const jsonFile = jsonArg?.startsWith("--json=") ? jsonArg.slice("--json=".length) : undefined;
const only = args.find((a) => !a.startsWith("--"));
const out = json ? process.stderr : process.stdout;
const print = (line: string) => out.write(`${line}\n`);
const results: boolean[] = [];
let pipeline: PipelineFigures | undefined;
let streams: StreamsFigures | undefined;
const run = json ? await describeRun() : undefined;
if (!only || only === "freeze") results.push(benchFreeze(print));
if (!only || only === "tokens") {
  results.push(benchModeTokens(print));
  results.push(await benchRealTokens(print));
}
if (!only || only === "pipeline") {
  results.push(
    await benchPipeline(print, (figures) => {
      pipeline = figures;
    }),
  );
}
if (!only || only === "cache") {
  results.push(benchPromptCache(print));
  results.push(benchAnthropicPromptCache(print));
}
if (!only || only === "tracing") results.push(await benchTracing(print));
if (!only || only === "format") results.push(benchFormat(print));
if (!only || only === "stream-render") results.push(benchStreamRender(print));
if (!only || only === "stream-read") results.push(await benchStreamRead(print));
if (!only || only === "cold-start") results.push(await benchColdStart(print));
if (!only || only === "telegram-calls") results.push(await benchTelegramCalls(print));
if (!only || only === "model-calls") results.push(await benchModelCalls(print));
if (only === "streams") {
  results.push(
    await benchStreams(print, args, (figures) => {
      streams = figures;
    }),
  );
}
if (json) {
  const figures =
    only === "streams" ? { streams: streams ?? null } : { pipeline: pipeline ?? null };
  const text = `${JSON.stringify({ run, ...figures }, null, 2)}\n`;
  if (jsonFile) writeFileSync(jsonFile, text);
  else process.stdout.write(text);
}
if (results.some((ok) => !ok)) {
  print("\nA target was missed.");
  process.exitCode = 1;
}

/** The machine and command of this run, for the line under the docs' figures. */
async function describeRun(): Promise<BenchRun> {
  const redis = new Redis(REDIS_URL);
  let version = "unknown";
  try {
    version = /redis_version:(\S+)/.exec(await redis.info("server"))?.[1] ?? version;
  } finally {
    redis.disconnect();
  }
  const env = [
    "REDIS_URL",
    "BENCH_ROUNDS",
    "BENCH_CONCURRENCY",
    "SWITCHYARD_CONCURRENCY",
    "SWITCHYARD_QUEUE_DEBOUNCE_MS",
  ]
    .filter((name) => process.env[name] !== undefined)
    .map((name) => `${name}=${process.env[name]}`);
  return {
    date: new Date().toISOString(),
    command: [...env, "npm run bench --", ...args].join(" "),
    node: process.version,
    os: `${type()} ${release()}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown CPU",
    loadAverage: loadavg()[0] ?? 0,
    redis: version,
  };
}
