/**
 * `npm run bench:readme [file]`: rewrites the performance figures of the docs
 * ({@link PERFORMANCE_PAGE}, between its bench markers) from one run's JSON, by default
 * bench/results/pipeline.json, which
 * `npm run bench -- pipeline --json=bench/results/pipeline.json` writes.
 * When bench/results/streams.json exists (`npm run bench -- streams
 * --json=bench/results/streams.json`), the streams table is rewritten too,
 * between its own markers.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import {
  type BenchJson,
  PERFORMANCE_PAGE,
  RESULTS_FILE,
  renderSection,
  replaceSection,
} from "./readme-section.ts";
import {
  renderStreamsSection,
  STREAMS_MARKERS,
  STREAMS_RESULTS_FILE,
  type StreamsJson,
} from "./streams-section.ts";

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
let page = replaceSection(readFileSync(PERFORMANCE_PAGE, "utf8"), renderSection(json));
process.stdout.write(`${PERFORMANCE_PAGE}: performance figures rewritten from ${file}\n`);
if (existsSync(STREAMS_RESULTS_FILE)) {
  const streams = JSON.parse(readFileSync(STREAMS_RESULTS_FILE, "utf8")) as StreamsJson;
  page = replaceSection(page, renderStreamsSection(streams), STREAMS_MARKERS);
  process.stdout.write(
    `${PERFORMANCE_PAGE}: streams table rewritten from ${STREAMS_RESULTS_FILE}\n`,
  );
}
writeFileSync(PERFORMANCE_PAGE, page);
