/**
 * The docs' "Performance" figures ({@link PERFORMANCE_PAGE}), rendered from one `npm run bench --
 * pipeline --json=bench/results/pipeline.json` run: a pure function from the JSON to markdown, and the
 * swap of the text between the page's markers. `bench/readme.ts` is the
 * command around it; test/unit/bench-readme.test.ts checks that the page
 * holds exactly what this renders from the committed JSON.
 */
import type { PipelineFigures, Spread } from "./pipeline.ts";

/** Where and how a bench run was made, as `npm run bench -- --json` records it. */
export interface BenchRun {
  /** ISO time the run started. */
  readonly date: string;
  /** The command line that produced the JSON, environment included. */
  readonly command: string;
  readonly node: string;
  readonly os: string;
  readonly cpus: number;
  readonly cpuModel: string;
  /** The one-minute load average when the run started (other processes on the machine). */
  readonly loadAverage: number;
  readonly redis: string;
}

/** What `npm run bench -- --json` prints. */
export interface BenchJson {
  readonly run?: BenchRun;
  readonly pipeline: PipelineFigures | null;
}

export const SECTION_START = "<!-- bench:pipeline:start -->";
export const SECTION_END = "<!-- bench:pipeline:end -->";

/** Where `npm run bench:readme` reads its figures by default. */
export const RESULTS_FILE = "bench/results/pipeline.json";

const n0 = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "n/a");
const n1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : "n/a");
const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : "n/a");

type Row = readonly [figure: string, min: string, median: string, max: string, target: string];

function spreadRow(figure: string, s: Spread, fmt: (v: number) => string, target = ""): Row {
  return [figure, fmt(s.min), fmt(s.median), fmt(s.max), target];
}

/** "≥ 35%: **missed**" from the run's own verdict on a target. */
function verdict(figures: PipelineFigures, key: string): string {
  const t = figures.targets[key];
  if (!t) return "";
  const target = t.target.replace(">=", "≥").replace("<=", "≤");
  return `${target}: ${t.met ? "met" : "**missed**"}`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const align = header.map((_, i) => (i === 0 || i === header.length - 1 ? "---" : "---:"));
  return [header, align, ...rows].map((cells) => `| ${cells.join(" | ")} |`);
}

function mainRows(f: PipelineFigures): Row[] {
  const one = (figure: string, v: number, target = ""): Row => [figure, "", n1(v), "", target];
  return [
    spreadRow("bare BullMQ, jobs/s", f.bare.perSecond, n0),
    spreadRow("bare + durable writes, jobs/s", f.durableFloor.perSecond, n0),
    spreadRow("Switchyard, turns/s", f.switchyard.perSecond, n0),
    spreadRow("ratio to bare BullMQ", f.ratioToBare, pct, verdict(f, "ratio")),
    spreadRow("ratio to the durable floor", f.ratioToDurableFloor, pct),
    spreadRow("CPU per message, bare, µs", f.bare.cpuMicros, n0),
    spreadRow("CPU per message, floor, µs", f.durableFloor.cpuMicros, n0),
    spreadRow("CPU per turn, Switchyard, µs", f.switchyard.cpuMicros, n0),
    spreadRow(
      "turns per CPU-second",
      f.switchyard.turnsPerCpuSecond,
      n0,
      verdict(f, "turnsPerCpuSecond"),
    ),
    spreadRow("Redis commands per message, bare", f.bare.commands, n1),
    spreadRow("Redis commands per message, floor", f.durableFloor.commands, n1),
    spreadRow(
      "Redis commands per turn, Switchyard",
      f.switchyard.commands,
      n1,
      verdict(f, "commands"),
    ),
    one("round trips per message, bare", f.roundTrips.bare),
    one("round trips per message, floor", f.roundTrips.durableFloor),
    one("round trips per turn, Switchyard", f.roundTrips.switchyard, verdict(f, "roundTrips")),
    spreadRow("framework overhead p50, ms", f.switchyard.overheadP50Ms, n1),
    spreadRow(
      "framework overhead p99, ms",
      f.switchyard.overheadP99Ms,
      n1,
      verdict(f, "overheadP99Ms"),
    ),
  ];
}

function scalingRows(f: PipelineFigures): string[][] {
  return f.scaling.map((s) => {
    const key = s.label.startsWith("history 200")
      ? "historyScaling"
      : s.label.startsWith("registry 200")
        ? "registryScaling"
        : "";
    return [s.label, n0(s.cpuMicros), `${s.vsFirst.toFixed(2)}x`, key ? verdict(f, key) : ""];
  });
}

export function runLine(run: BenchRun | undefined): string {
  if (!run) return "Measured on an unrecorded machine.";
  const day = run.date.slice(0, 16).replace("T", " ");
  return (
    `Measured ${day} UTC on ${run.os}, ${run.cpus} × ${run.cpuModel}, Node ${run.node}, ` +
    `Redis ${run.redis}; one-minute load average ${run.loadAverage.toFixed(1)} at the start ` +
    "(the machine is shared, so absolute rates are low; ratios and per-turn counts are what to read)."
  );
}

/** The markdown between the markers, from one run's JSON. */
export function renderSection(json: BenchJson): string {
  const f = json.pipeline;
  if (!f) {
    throw new Error(
      "The bench JSON has no pipeline figures; produce it with `npm run bench -- pipeline --json`.",
    );
  }
  const met = Object.values(f.targets).filter((t) => t.met).length;
  const total = Object.values(f.targets).length;
  const lines = [
    SECTION_START,
    "<!-- generated by `npm run bench:readme` from bench/results/pipeline.json: edit neither by hand -->",
    "",
    runLine(json.run),
    "",
    "```sh",
    json.run?.command ?? `npm run bench -- pipeline --json=${RESULTS_FILE}`,
    "npm run bench:readme",
    "```",
    "",
    `${f.shape.conversations.toLocaleString("en-US")} conversations, ${f.shape.tools} tools, one tool call per turn, ` +
      `an instant model, concurrency ${f.shape.concurrency}; one warm-up round discarded, then ${f.rounds} rounds ` +
      `with the sides' order rotated. Round trips are counted one message at a time. Targets met: ${met} of ${total}.`,
    "",
    ...table(["Figure", "min", "median", "max", "target"], mainRows(f)),
    "",
    "CPU per turn as one thing changes (a conversation's second turn; against the first row of its group):",
    "",
    ...table(["Shape", "CPU per turn, µs", "vs first", "target"], scalingRows(f)),
    "",
    SECTION_END,
  ];
  return lines.join("\n");
}

/** The docs page whose performance figures this renders. */
export const PERFORMANCE_PAGE = "docs/internals/performance.md";

/** The markers around one generated section of the page. */
export interface Markers {
  readonly start: string;
  readonly end: string;
}

const PIPELINE_MARKERS: Markers = { start: SECTION_START, end: SECTION_END };

/** The page with the text between the markers (markers included) replaced by `section`. */
export function replaceSection(
  readme: string,
  section: string,
  { start: startMarker, end: endMarker }: Markers = PIPELINE_MARKERS,
): string {
  const start = readme.indexOf(startMarker);
  const end = readme.indexOf(endMarker);
  if (start === -1 || end === -1 || end < start) {
    throw new Error(
      `${PERFORMANCE_PAGE} has no section to replace: put ${startMarker} and ${endMarker} on lines of their own where it goes.`,
    );
  }
  return readme.slice(0, start) + section + readme.slice(end + endMarker.length);
}

/** The section as the page holds it now (markers included), or undefined. */
export function currentSection(
  readme: string,
  { start: startMarker, end: endMarker }: Markers = PIPELINE_MARKERS,
): string | undefined {
  const start = readme.indexOf(startMarker);
  const end = readme.indexOf(endMarker);
  if (start === -1 || end === -1 || end < start) return undefined;
  return readme.slice(start, end + endMarker.length);
}
