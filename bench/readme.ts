/**
 * `npm run bench:readme [file]`: rewrites the performance figures of the docs
 * ({@link PERFORMANCE_PAGE}, between its bench markers) from one run's JSON, by default
 * bench/results/pipeline.json, which
 * `npm run bench -- pipeline --json=bench/results/pipeline.json` writes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import {
  type BenchJson,
  PERFORMANCE_PAGE,
  RESULTS_FILE,
  renderSection,
  replaceSection,
} from "./readme-section.ts";

const file = process.argv[2] ?? RESULTS_FILE;
let json: BenchJson;
try {
  json = JSON.parse(readFileSync(file, "utf8")) as BenchJson;
} catch (error) {
  process.stderr.write(
    `Cannot read the bench figures from ${file} (${(error as Error).message}); write them with \`npm run bench -- pipeline --json=${RESULTS_FILE}\`.\n`,
  );
  process.exit(1);
}
const page = readFileSync(PERFORMANCE_PAGE, "utf8");
writeFileSync(PERFORMANCE_PAGE, replaceSection(page, renderSection(json)));
process.stdout.write(`${PERFORMANCE_PAGE}: performance figures rewritten from ${file}\n`);
