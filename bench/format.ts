import { splitMessage } from "../src/core/delivery/split.ts";
import { toMrkdwn } from "../src/platforms/slack/format.ts";
import { toTelegramHtml } from "../src/platforms/telegram/format.ts";
import { splitTelegramHtml } from "../src/platforms/telegram/html-split.ts";
import { formatNs, measurePair } from "./harness.ts";

/** A deep or hostile input may cost this many times its ordinary twin, no more. */
const FORMAT_TARGET = 5;

const nestedList = (depth: number) =>
  Array.from({ length: depth }, (_, i) => `${"  ".repeat(i)}- item ${i}`).join("\n");
const flatList = (items: number) =>
  Array.from({ length: items }, (_, i) => `- item ${i}`).join("\n");
const prose = (length: number) =>
  "Some words of an answer. ".repeat(length / 25 + 1).slice(0, length);

/** Each hostile input against an ordinary one of the same shape, through the same function. */
const CASES: readonly {
  readonly name: string;
  readonly subject: () => unknown;
  readonly baseline: () => unknown;
}[] = [
  {
    name: "toTelegramHtml: 2,000 nested quotes vs prose",
    subject: () => toTelegramHtml(`${"> ".repeat(2000)}text`),
    baseline: () => toTelegramHtml(prose(4004)),
  },
  {
    name: "toMrkdwn: 2,000 nested quotes vs prose",
    subject: () => toMrkdwn(`${"> ".repeat(2000)}text`),
    baseline: () => toMrkdwn(prose(4004)),
  },
  {
    name: "toTelegramHtml: 400 nested list levels vs 400 items",
    subject: () => toTelegramHtml(nestedList(400)),
    baseline: () => toTelegramHtml(flatList(400)),
  },
  {
    name: "toMrkdwn: 400 nested list levels vs 400 items",
    subject: () => toMrkdwn(nestedList(400)),
    baseline: () => toMrkdwn(flatList(400)),
  },
  {
    name: "splitTelegramHtml: 32,000 unclosed '<a ' vs escaped text",
    subject: () => splitTelegramHtml("<a ".repeat(32_000), 4096),
    baseline: () => splitTelegramHtml("x &lt; ".repeat(16_000), 4096),
  },
  {
    name: "splitTelegramHtml: 20,000 nested tags vs 20,000 siblings",
    subject: () =>
      splitTelegramHtml(`${"<b>".repeat(20_000)}${"x".repeat(5000)}${"</b>".repeat(20_000)}`, 4096),
    baseline: () => splitTelegramHtml(`${"<b></b>".repeat(20_000)}${"x".repeat(5000)}`, 4096),
  },
  {
    name: "splitMessage: 1 MB on one line vs 1 MB of prose",
    subject: () => splitMessage("x".repeat(1_000_000), 4000),
    baseline: () => splitMessage(prose(1_000_000), 4000),
  },
];

/**
 * What the model's worst markdown costs the formatters and splitters,
 * against ordinary text of the same shape. Returns whether every case
 * stays within {@link FORMAT_TARGET}.
 */
export function benchFormat(print: (line: string) => void): boolean {
  print("\nFormatting hostile answers vs ordinary ones of the same shape");
  let ok = true;
  for (const { name, subject, baseline } of CASES) {
    const timing = measurePair(subject, baseline, { batches: 11 });
    const met = timing.ratio <= FORMAT_TARGET;
    if (!met) ok = false;
    print(
      `${name.padEnd(62)} ${formatNs(timing.subject.median).padStart(10)} vs ${formatNs(timing.baseline.median).padStart(10)}  ${timing.ratio.toFixed(2)}x  (target <= ${FORMAT_TARGET}x: ${met ? "met" : "MISSED"})`,
    );
  }
  return ok;
}
