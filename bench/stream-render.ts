/**
 * What rendering a streamed answer costs the worker: the markdown parse with
 * GFM's extensions built on every call (as before) against built once,
 * every edit of a streamed answer rendered whole against incrementally
 * (src/platforms/markdown/incremental.ts), and one whole turn of the streams
 * load test (its drafts and its final message, as Telegram parts) against
 * the same turn with every draft rendered whole, subject and baseline in the
 * same run. `npm run bench -- stream-render`.
 */
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { IncrementalMarkdown } from "../src/platforms/markdown/incremental.ts";
import { renderMarkdown } from "../src/platforms/markdown/layout.ts";
import { TELEGRAM_HTML } from "../src/platforms/telegram/format.ts";
import { renderParts } from "../src/platforms/telegram/outbound.ts";
import { formatNs, measurePair } from "./harness.ts";
import { answerFor } from "./streams-run.ts";

/** The incremental render of a long answer's edits must cost at most this share of whole renders. */
const TARGET = 0.5;
/**
 * A whole turn's rendering must cost at most this share of rendering each
 * draft whole. A short answer saves less than a long one (0.13x above):
 * whole renders of it are cheap too, since a plain line skips the parser
 * and GFM's costly constructs run only where the text can hold them.
 */
const TURN_TARGET = 0.75;
/** Drafts in a 5 s answer: Telegram takes one a second per chat, the first as the first word comes. */
const DRAFTS = 5;

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

/**
 * The texts one turn of the streams load test renders: the answer streamed
 * word by word, a draft of it at each second, then the final message.
 */
function turnOf(answer: string): { drafts: string[]; final: string } {
  const words = answer.match(/\S+\s*|\s+/g) ?? [];
  const drafts = Array.from({ length: DRAFTS }, (_, second) =>
    words.slice(0, Math.max(1, Math.floor((second * words.length) / DRAFTS))).join(""),
  );
  return { drafts, final: answer };
}

/** Each conversation's turn: a turn's answer shares no beginning with another's, as in the load test. */
const TURNS = Array.from({ length: 500 }, (_, conversation) => turnOf(answerFor(conversation)));

/**
 * Renders turns as the worker does, through `parts` with a stream of their
 * own each (so no turn finds another's blocks kept): the first part of each
 * draft, then every part of the final message.
 */
function turnRenderer<S>(
  stream: () => S,
  parts: (stream: S, markdown: string) => string[],
): () => number {
  let next = 0;
  return () => {
    const turn = TURNS[next++ % TURNS.length] as (typeof TURNS)[number];
    const s = stream();
    let shown = 0;
    for (const draft of turn.drafts) shown += (parts(s, draft)[0] as string).length;
    return shown + parts(s, turn.final).length;
  };
}

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
  const turn = measurePair(
    turnRenderer(
      () => undefined,
      (_, markdown) => renderParts(markdown, (text) => renderMarkdown(text, TELEGRAM_HTML)),
    ),
    turnRenderer(
      () => new IncrementalMarkdown(TELEGRAM_HTML),
      (stream, markdown) => renderParts(markdown, (text) => stream.render(text)),
    ),
    { batches: 15 },
  );
  const turnRatio = turn.baseline.median / turn.subject.median;
  print(
    `${`one streams-test turn (${DRAFTS} drafts + final), Telegram parts`.padEnd(66)} whole ${formatNs(turn.subject.median).padStart(10)}  incremental ${formatNs(turn.baseline.median).padStart(10)}  ${turnRatio.toFixed(2)}x  (target <= ${TURN_TARGET}x: ${turnRatio <= TURN_TARGET ? "met" : "MISSED"})`,
  );
  return ok && turnRatio <= TURN_TARGET;
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
