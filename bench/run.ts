/**
 * `npm run bench`: every benchmark, each printing ratios against a baseline
 * measured in the same run. Exits non-zero when a target is missed.
 */
import { benchFreeze, benchModeTokens } from "./core.ts";
import { benchFormat } from "./format.ts";
import { benchPipeline } from "./pipeline.ts";
import { benchRealTokens } from "./real-registry.ts";

const print = (line: string) => process.stdout.write(`${line}\n`);
const only = process.argv[2];
const results: boolean[] = [];
if (!only || only === "freeze") results.push(benchFreeze(print));
if (!only || only === "tokens") {
  results.push(benchModeTokens(print));
  results.push(await benchRealTokens(print));
}
if (!only || only === "pipeline") results.push(await benchPipeline(print));
if (!only || only === "format") results.push(benchFormat(print));
if (results.some((ok) => !ok)) {
  print("\nA target was missed.");
  process.exitCode = 1;
}
