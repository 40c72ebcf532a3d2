import { DurationSyntaxError } from "./errors.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/** Unit words, short and long. `m` is minutes: months have no fixed length, so there is no month unit. */
const UNITS: ReadonlyMap<string, number> = new Map([
  ...["s", "sec", "secs", "second", "seconds"].map((u) => [u, SECOND] as const),
  ...["m", "min", "mins", "minute", "minutes"].map((u) => [u, MINUTE] as const),
  ...["h", "hr", "hrs", "hour", "hours"].map((u) => [u, HOUR] as const),
  ...["d", "day", "days"].map((u) => [u, DAY] as const),
  ...["w", "wk", "wks", "week", "weeks"].map((u) => [u, WEEK] as const),
]);

const EXAMPLE = 'Write a number and a unit (s, m, h, d or w), e.g. "90m", "2h30m" or "1d".';

/** A number then a unit word, with optional space between and around them. */
const PART = /\s*((\d+(?:\.\d+)?)\s*([a-z]+))\s*(?:,|and\b)?/iy;

/**
 * Reads a duration as people and models write it: `90m`, `2h30m`, `1d`,
 * `1.5h`, `2 hours 15 minutes`. Parts add up, in any order. Returns
 * milliseconds.
 *
 * @throws DurationSyntaxError naming the part that is not a duration, with an example.
 *
 * @example
 * parseDuration("2h30m"); // 9_000_000
 * parseDuration("2 months"); // DurationSyntaxError: "2 months" ... months vary in length ...
 */
export function parseDuration(input: string): number {
  const text = input.trim();
  if (text === "") {
    throw new DurationSyntaxError(input, "", `The duration is empty. ${EXAMPLE}`);
  }
  let total = 0;
  let at = 0;
  while (at < text.length) {
    PART.lastIndex = at;
    const match = PART.exec(text);
    if (!match) throw notAPart(input, badToken(text, at));
    const [whole, written, amount, unitWord] = match as unknown as [string, string, string, string];
    const unit = UNITS.get(unitWord.toLowerCase());
    if (unit === undefined) throw unknownUnit(input, written, unitWord);
    total += Number(amount) * unit;
    at += whole.length;
  }
  const ms = Math.round(total);
  if (!Number.isSafeInteger(ms)) {
    throw new DurationSyntaxError(
      input,
      text,
      `${JSON.stringify(text)} is far too long a duration. ${EXAMPLE}`,
    );
  }
  return ms;
}

/**
 * The canonical spelling of a duration, whole seconds, largest unit first:
 * `formatDuration(9_000_000)` is `"2h30m"`. Reading it back with
 * {@link parseDuration} gives the same milliseconds.
 */
export function formatDuration(ms: number): string {
  let rest = Math.round(Math.max(0, ms) / SECOND) * SECOND;
  if (rest === 0) return "0s";
  let out = "";
  for (const [unit, size] of [
    ["d", DAY],
    ["h", HOUR],
    ["m", MINUTE],
    ["s", SECOND],
  ] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) out += `${count}${unit}`;
    rest -= count * size;
  }
  return out;
}

/** The run of text from `at` up to the next space: what the person will recognise as the wrong part. */
function badToken(text: string, at: number): string {
  const rest = text.slice(at).trimStart();
  return rest.match(/^\S+/)?.[0] ?? rest;
}

function notAPart(input: string, token: string): DurationSyntaxError {
  const where = token === input.trim() ? "" : ` in ${JSON.stringify(input.trim())}`;
  return new DurationSyntaxError(
    input,
    token,
    `${JSON.stringify(token)}${where} is not a duration. ${EXAMPLE}`,
  );
}

function unknownUnit(input: string, token: string, unit: string): DurationSyntaxError {
  const calendar = /^(mo|mon|mons|month|months|y|yr|yrs|year|years)$/i.test(unit);
  const hint = calendar
    ? ' Months and years vary in length: give days (e.g. "30d") or set the date with at: instead.'
    : "";
  const where = token === input.trim() ? "" : ` in ${JSON.stringify(input.trim())}`;
  return new DurationSyntaxError(
    input,
    token,
    `${JSON.stringify(token)}${where} has the unknown unit ${JSON.stringify(unit)}.${hint} ${EXAMPLE}`,
  );
}
