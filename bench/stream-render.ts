/**
 * What rendering a streamed answer costs the worker: the markdown parse with
 * GFM's extensions built on every call (as before) against built once, and
 * every edit of a streamed answer rendered whole against incrementally
 * (src/platforms/markdown/incremental.ts), subject and baseline in the same
 * run. `npm run bench -- stream-render`.
 */
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { IncrementalMarkdown } from "../src/platforms/markdown/incremental.ts";
import { renderMarkdown } from "../src/platforms/markdown/layout.ts";
import { TELEGRAM_HTML } from "../src/platforms/telegram/format.ts";
import { formatNs, measurePair } from "./harness.ts";
import { answerFor } from "./streams-run.ts";

/** The incremental render of a long answer's edits must cost at most this share of whole renders. */
const TARGET = 0.5;

const SHARED = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/** The text of each edit: the answer cut every `every` characters, then whole. */
function edits(answer: string, every: number): string[] {
  const cuts: string[] = [];
  for (let at = every; at < answer.length; at += every) cuts.push(answer.slice(0, at));
  cuts.push(answer);
  return cuts;
}

/** A long answer: the load test's answer twelve times, about 12,000 characters. */
const LONG = Array.from({ length: 12 }, (_, i) => answerFor(i)).join("\n\n");
const SHORT = answerFor(1);

export function benchStreamRender(print: (line: string) => void): boolean {
  print("\nRendering streamed answers (Telegram HTML): before vs now, in the same run");
  const parse = measurePair(
    () => fromMarkdown(SHORT, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }),
    () => fromMarkdown(SHORT, SHARED),
    { batches: 11 },
  );
  line(print, "parse, GFM extensions built per call vs once", parse);
  const cases = [
    ["5 s answer (1,000 chars), an edit per 200 chars", SHORT, 200],
    ["5 s answer (1,000 chars), an edit per 40 chars", SHORT, 40],
    ["long answer (12,000 chars), an edit per 400 chars", LONG, 400],
  ] as const;
  let ok = true;
  for (const [name, answer, every] of cases) {
    const texts = edits(answer, every);
    const timing = measurePair(
      () => {
        let out = "";
        for (const text of texts) out = renderMarkdown(text, TELEGRAM_HTML);
        return out;
      },
      () => {
        const stream = new IncrementalMarkdown(TELEGRAM_HTML);
        let out = "";
        for (const text of texts) out = stream.render(text);
        return out;
      },
      { batches: 11 },
    );
    // The subject is the old way here: the ratio printed is new / old.
    const ratio = timing.baseline.median / timing.subject.median;
    if (answer === LONG && ratio > TARGET) ok = false;
    print(
      `${`${name}, ${texts.length} renders`.padEnd(66)} whole ${formatNs(timing.subject.median).padStart(10)}  incremental ${formatNs(timing.baseline.median).padStart(10)}  ${ratio.toFixed(2)}x${answer === LONG ? `  (target <= ${TARGET}x: ${ratio <= TARGET ? "met" : "MISSED"})` : ""}`,
    );
  }
  return ok;
}

function line(
  print: (line: string) => void,
  name: string,
  timing: ReturnType<typeof measurePair>,
): void {
  print(
    `${name.padEnd(66)} before ${formatNs(timing.subject.median).padStart(9)}  now ${formatNs(timing.baseline.median).padStart(10)}  ${(timing.baseline.median / timing.subject.median).toFixed(2)}x`,
  );
}
