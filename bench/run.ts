/**
 * `npm run bench`: every benchmark, each printing ratios against a baseline
 * measured in the same run. Exits non-zero when a target is missed.
 * `npm run bench -- pipeline` runs one; `--json` prints the pipeline's
 * figures as JSON on stdout (the text goes to stderr).
 */
import { benchFreeze, benchModeTokens } from "./core.ts";
import { benchFormat } from "./format.ts";
import { benchPipeline, type PipelineFigures } from "./pipeline.ts";
import { benchRealTokens } from "./real-registry.ts";
import { benchTracing } from "./tracing.ts";

const args = process.argv.slice(2);
const json = args.includes("--json");
const only = args.find((a) => !a.startsWith("--"));
const out = json ? process.stderr : process.stdout;
const print = (line: string) => out.write(`${line}\n`);
const results: boolean[] = [];
let pipeline: PipelineFigures | undefined;
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
if (!only || only === "tracing") results.push(await benchTracing(print));
if (!only || only === "format") results.push(benchFormat(print));
if (json) process.stdout.write(`${JSON.stringify({ pipeline: pipeline ?? null }, null, 2)}\n`);
if (results.some((ok) => !ok)) {
  print("\nA target was missed.");
  process.exitCode = 1;
}
