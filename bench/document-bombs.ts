/**
 * Document bombs through the parser threads, as a worker reads them: for
 * each, how long until its answer, this process's peak RSS while it was
 * read (sampled every 50 ms from /proc/self/status), and the worst delay of
 * a 50 ms timer meanwhile (what another conversation's turn would wait).
 * The bombs are made by a child process first, so making them (hundreds of
 * MB for a moment) does not count.
 *
 *   npx tsx bench/document-bombs.ts
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DOCX_TYPE } from "../src/core/attachments/kind.ts";
import { DEFAULT_ATTACHMENTS } from "../src/core/config/index.ts";
import { DocumentParsers } from "../src/tools/attachments/document-parsers.ts";
import { manyPagesPdf, nestedDocx, zipBombDocx } from "../test/support/document-bombs.ts";

const BOMBS = [
  ["zip-bomb.docx", DOCX_TYPE, () => zipBombDocx()],
  ["lying-zip-bomb.docx", DOCX_TYPE, () => zipBombDocx(300_000_000, true)],
  ["100k-pages.pdf", "application/pdf", () => manyPagesPdf(100_000)],
  ["nested.docx", DOCX_TYPE, () => nestedDocx(100_000)],
] as const;

const generating = process.argv[2] === "--generate";
if (generating) {
  const dir = process.argv[3] as string;
  for (const [name, , make] of BOMBS) writeFileSync(join(dir, name), make());
} else {
  const dir = mkdtempSync(join(tmpdir(), "sy-bombs-"));
  const self = fileURLToPath(import.meta.url);
  spawnSync(process.execPath, [...process.execArgv, self, "--generate", dir], { stdio: "inherit" });
  const rss = () =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1]) / 1024;
  const parsers = new DocumentParsers();
  for (const [name, type] of BOMBS) {
    const bytes = readFileSync(join(dir, name));
    const before = rss();
    let peak = before;
    let lag = 0;
    let last = performance.now();
    const tick = setInterval(() => {
      const now = performance.now();
      lag = Math.max(lag, now - last - 50);
      last = now;
      peak = Math.max(peak, rss());
    }, 50);
    const started = performance.now();
    const answer = await parsers.parse(
      { bytes, type },
      DEFAULT_ATTACHMENTS,
      new AbortController().signal,
    );
    clearInterval(tick);
    const note = answer.ok ? (answer.cut ?? `${answer.text.length} characters`) : answer.problem;
    console.log(
      `${name} (${(bytes.length / 1e6).toFixed(1)} MB): ${Math.round(performance.now() - started)} ms; ` +
        `RSS ${Math.round(before)} MB, peak ${Math.round(peak)} MB; worst timer delay ${Math.round(lag)} ms; ${note}`,
    );
  }
  await parsers.close();
  rmSync(dir, { recursive: true, force: true });
}
