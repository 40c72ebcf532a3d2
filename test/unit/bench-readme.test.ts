import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BenchJson,
  currentSection,
  PERFORMANCE_PAGE,
  RESULTS_FILE,
  renderSection,
  replaceSection,
  SECTION_END,
  SECTION_START,
} from "../../bench/readme-section.ts";
import type { StreamsFigureName } from "../../bench/streams.ts";
import { STREAMS_ROWS } from "../../bench/streams.ts";
import {
  renderStreamsSection,
  STREAMS_MARKERS,
  STREAMS_RESULTS_FILE,
  type StreamsJson,
} from "../../bench/streams-section.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PAGE = readFileSync(`${ROOT}${PERFORMANCE_PAGE}`, "utf8");
const RESULTS = JSON.parse(readFileSync(`${ROOT}${RESULTS_FILE}`, "utf8")) as BenchJson;

describe("the performance section of the docs", () => {
  it("is exactly what `npm run bench:readme` renders from the committed bench JSON", () => {
    expect(currentSection(PAGE)).toBe(renderSection(RESULTS));
  });

  it("shows every target of the run with its verdict, and the command that made it", () => {
    const section = renderSection(RESULTS);
    const targets = Object.values(RESULTS.pipeline?.targets ?? {});
    expect(targets.length).toBeGreaterThan(5);
    const verdicts = section.match(/: (met|\*\*missed\*\*) \|/g) ?? [];
    expect(verdicts).toHaveLength(targets.length);
    expect(verdicts.filter((v) => v.includes("missed"))).toHaveLength(
      targets.filter((t) => !t.met).length,
    );
    expect(section).toContain(`${RESULTS.run?.command}\nnpm run bench:readme`);
    expect(RESULTS.run?.command).toContain(`--json=${RESULTS_FILE}`);
  });

  it("holds no console block, which the docs' console test would run", () => {
    expect(renderSection(RESULTS)).not.toMatch(/^```console/m);
  });
});

describe("replaceSection", () => {
  it("replaces only what is between the markers", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.string(),
        fc.string(),
        (before, old, after, body) => {
          fc.pre(![before, old, after, body].some((s) => s.includes("<!-- bench:")));
          const readme = `${before}${SECTION_START}${old}${SECTION_END}${after}`;
          const section = `${SECTION_START}${body}${SECTION_END}`;
          expect(replaceSection(readme, section)).toBe(`${before}${section}${after}`);
        },
      ),
    );
  });

  it("says where the markers go when the page has none", () => {
    expect(() => replaceSection("# Title\n", "x")).toThrow(/put <!-- bench:pipeline:start -->/);
  });

  it("names the command to run when the JSON has no pipeline figures", () => {
    expect(() => renderSection({ pipeline: null })).toThrow(/npm run bench -- pipeline --json/);
  });
});

describe("the streams table", () => {
  const spread = (median: number, min = median, max = median) => ({ min, median, max });
  const figures = Object.fromEntries(STREAMS_ROWS.map(([, key]) => [key, spread(0)])) as Record<
    StreamsFigureName,
    ReturnType<typeof spread>
  >;
  const json: StreamsJson = {
    streams: {
      answerMs: 5_000,
      deadlineMs: 180_000,
      loads: [
        {
          conversations: 1_000,
          runs: 3,
          figures: { ...figures, done: spread(1_000), wallMs: spread(14_200, 13_900, 15_100) },
          targets: {
            wallMs: { target: "<= 15 s", met: true },
            lost: { target: "= 0", met: false },
          },
        },
      ],
    },
  };

  it("shows each load's median with its spread and each target's verdict, between its own markers", () => {
    const section = renderStreamsSection(json);
    expect(section.startsWith(STREAMS_MARKERS.start)).toBe(true);
    expect(section.endsWith(STREAMS_MARKERS.end)).toBe(true);
    expect(section).toContain("| Figure | N = 1,000 |\n| --- | ---: |");
    expect(section).toContain("| wall time, s | 14.2 (13.9–15.1) (≤ 15 s: met) |");
    expect(section).toContain("| lost | 0 (= 0: **missed**) |");
    expect(section).toContain("npm run bench -- streams --json=bench/results/streams.json");
  });

  it("goes between the streams markers and leaves the pipeline's section alone", () => {
    const page = `${SECTION_START}\npipeline\n${SECTION_END}\n\n${STREAMS_MARKERS.start}\nold\n${STREAMS_MARKERS.end}\n`;
    const section = renderStreamsSection(json);
    const replaced = replaceSection(page, section, STREAMS_MARKERS);
    expect(currentSection(replaced, STREAMS_MARKERS)).toBe(section);
    expect(currentSection(replaced)).toBe(`${SECTION_START}\npipeline\n${SECTION_END}`);
  });

  it("is on the performance page exactly as `npm run bench:readme` renders the committed streams run", () => {
    const committed = JSON.parse(
      readFileSync(`${ROOT}${STREAMS_RESULTS_FILE}`, "utf8"),
    ) as StreamsJson;
    expect(currentSection(PAGE, STREAMS_MARKERS)).toBe(renderStreamsSection(committed));
  });

  it("names the command to run when the JSON has no streams figures", () => {
    expect(() => renderStreamsSection({ streams: null })).toThrow(
      /npm run bench -- streams --json/,
    );
  });
});
