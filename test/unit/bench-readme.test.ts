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
