/**
 * Token estimates for what goes on the wire, without shipping a tokenizer.
 *
 * Why a heuristic works: the model is OpenAI's o200k_base, whose first step is
 * a regex that cuts text into pieces (a word with its leading space, a group of
 * up to three digits, a run of punctuation, a run of whitespace); BPE then runs
 * inside each piece only. The 200k-token vocabulary holds nearly every English
 * word and most JSON glue (`":"`, `":{"`, `","`, `.","`) whole, so in tool
 * schemas, tool names and prose most pieces are exactly one token. We cut text
 * with the same regex, charge each piece one token, and add a fraction of a
 * token per character where BPE is known to split a piece:
 *
 * - long letter runs; identifier fragments split sooner than words
 *   (` description` is one token, `_repositories` two, `/assistants` three);
 * - punctuation runs: JSON glue merges about three characters to a token,
 *   other marks about two, and `"},"` / `"],"` are two tokens;
 * - scripts other than Latin cost more per character, CJK most.
 *
 * How it was calibrated: the constants were fitted against js-tiktoken's
 * o200k_base on the canonical wire JSON of real tools (web search, URL
 * fetching, the GitHub, filesystem and Slack MCP servers, in
 * `test/fixtures/realistic-tools.ts`) and of ~600 tools built from the OpenAI
 * SDK's documented request types, on catalogs of `mcp__server__tool` names,
 * and on API-reference and README prose; then checked, unchanged, on
 * `bench/demo-registry.ts`. Worst errors seen: 11% on one tool's wire JSON
 * (under 1% summed over a tools array), 7% on a catalog, 10% on English prose;
 * `test/unit/budget.test.ts` holds it to 15% against the real tokenizer.
 * It is one regex pass with constant work per piece: about 12 ms per 1,000
 * tools (600 KB of wire JSON), against about 200 ms for js-tiktoken itself.
 */

// o200k_base's pre-tokenizer pattern, minus the English-contraction suffixes
// (`'s`, `'ll`, ...), which cost one token whether attached or split off.
const PIECE =
  /[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

const LETTER = /\p{L}/u;

/**
 * Letter runs cost one token up to `free` letters and `rate` tokens for each
 * letter after that, by what precedes the run. Words after a space are the
 * vocabulary's bread and butter; bare words (JSON keys, line starts) split a
 * little sooner, snake_case tails sooner still, and fragments after `/`, `.`,
 * `-` (paths, URLs, dotted names) soonest.
 */
interface LengthRule {
  readonly free: number;
  readonly rate: number;
}
const SPACED: LengthRule = { free: 6, rate: 0.03 };
const BARE: LengthRule = { free: 5, rate: 0.1 };
const SNAKE: LengthRule = { free: 5, rate: 0.11 };
const AFTER_MARK: LengthRule = { free: 3, rate: 0.18 };

/**
 * Tokens per letter in other scripts: the vocabulary holds fewer of their
 * words whole (Cyrillic runs about three letters a token), and CJK text has no
 * spaces to cut at and costs most of a token per character.
 */
const NON_LATIN = 0.3;
const CJK = 0.7;

/**
 * Bare words the length rule gets wrong: `mcp`, which starts every MCP tool
 * id, is two tokens (`m`, `cp`); the long keys of the tool wrapper and of JSON
 * Schema, which every resident tool repeats, are one each.
 */
const KNOWN: ReadonlyMap<string, number> = new Map([
  ["mcp", 2],
  ["description", 1],
  ["parameters", 1],
  ["properties", 1],
  ["additional", 1],
  ["Properties", 1],
  ["required", 1],
]);

/**
 * Estimated o200k_base token count of `text`: 0 for the empty string, at
 * least 1 for anything else.
 *
 * @example
 * estimateTokens("Search the web for recent news."); // 7, as o200k_base counts it
 */
export function estimateTokens(text: string): number {
  let total = 0;
  for (const match of text.matchAll(PIECE)) total += pieceCost(match[0]);
  return Math.round(total);
}

/**
 * What a resident tool adds to a request: its wire JSON, the canonical
 * `{"function":{"description":...,"name":...,"parameters":...},"type":"function"}`
 * held in the provider's `tools` array.
 *
 * @example
 * residentToolTokens(tool.wire); // ~150 for a web search tool with three parameters
 */
export function residentToolTokens(wire: string): number {
  return estimateTokens(wire);
}

/**
 * What a deferred tool adds to the catalog: its bare name and a newline.
 *
 * @example
 * deferredToolTokens("mcp__github__create_issue"); // 8: m·cp·__·github·__·create·_issue·\n
 */
export function deferredToolTokens(id: string): number {
  return estimateTokens(`${id}\n`);
}

function pieceCost(piece: string): number {
  const first = piece.charCodeAt(0);
  if (isAsciiLetter(first)) return letterCost(piece, 0);
  if (isDigit(first)) return 1; // the regex already cut digits into groups of three
  if (first < 128) {
    const second = piece.length > 1 ? piece.charCodeAt(1) : 0;
    if (isAsciiLetter(second)) return letterCost(piece, 1);
    // The regex puts at most one character before a letter run, so with no
    // letter in the first two places (and nothing beyond ASCII) there is none.
    if (second < 128) return otherCost(piece);
  }
  if (!LETTER.test(piece)) return otherCost(piece);
  // Beyond ASCII: a letter run that starts with a letter, or after one mark.
  const lead = String.fromCodePoint(piece.codePointAt(0) ?? first);
  if (LETTER.test(lead)) return letterCost(piece, 0);
  if (first < 128) return letterCost(piece, 1);
  // An emoji or other symbol before letters stays a token (or two) of its own.
  return punctuationCost(lead) + letterCost(piece.slice(lead.length), 0);
}

/** A piece with no letters: whitespace, or punctuation and symbols. */
function otherCost(piece: string): number {
  return piece.trim() === "" ? 1 + Math.floor(piece.length / 64) : punctuationCost(piece);
}

/** A letter run, after at most one space or ASCII punctuation character (`lead`). */
function letterCost(piece: string, lead: 0 | 1): number {
  const after = lead === 0 ? -1 : piece.charCodeAt(0);
  const known = after === -1 ? KNOWN.get(piece) : KNOWN.get(piece.slice(1));
  if (known !== undefined)
    return after === -1 || after === 0x20 || after === 0x5f ? known : known + 1;
  let latin = 0;
  let cjk = 0;
  for (let i = lead; i < piece.length; i++) {
    const code = piece.charCodeAt(i);
    if (code < 0x370)
      latin++; // ASCII and accented Latin
    else if (code >= 0x2e80) cjk++;
  }
  const other = piece.length - lead - latin - cjk;
  const word = latin === 0 ? 0.1 : latinCost(latin, after);
  return Math.max(1, word + NON_LATIN * other + CJK * cjk);
}

/**
 * Latin letters: one token up to `free` letters, `rate` per letter after.
 * What precedes a run moves its cost by at most one token either way: past
 * word length a run is no word, and a space or mark cannot change that much.
 */
function latinCost(letters: number, after: number): number {
  const bare = lengthCost(letters, BARE);
  if (after === -1) return bare;
  if (after === 0x20) return Math.max(lengthCost(letters, SPACED), bare - 1);
  return Math.min(lengthCost(letters, after === 0x5f ? SNAKE : AFTER_MARK), bare + 1);
}

function lengthCost(letters: number, rule: LengthRule): number {
  return 1 + Math.max(0, letters - rule.free) * rule.rate;
}

/** A run of punctuation (JSON glue, markdown, emoji), possibly after a space. */
function punctuationCost(piece: string): number {
  let glue = 0;
  let marks = 0;
  let wide = 0;
  for (let i = piece.charCodeAt(0) === 32 ? 1 : 0; i < piece.length; i++) {
    const code = piece.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff)
      wide += 1.5; // an emoji or other astral symbol
    else if (code >= 0xdc00 && code <= 0xdfff) continue;
    else if (code >= 128) wide++;
    else if (isGlue(code)) glue++;
    else marks++;
  }
  return Math.max(1, Math.max(0, glue - 1) / 3 + marks / 2 + wide + closersBeforeComma(piece));
}

/** `"},"` and `"],"` are two tokens each, though JSON glue of four characters. */
function closersBeforeComma(piece: string): number {
  let count = 0;
  for (let i = piece.indexOf('"'); i >= 0 && i + 2 < piece.length; i = piece.indexOf('"', i + 1)) {
    const closer = piece.charCodeAt(i + 1);
    if ((closer === 0x7d || closer === 0x5d) && piece.charCodeAt(i + 2) === 0x2c) count++;
  }
  return count;
}

/** `"{}[]:,.`, the characters JSON is held together with. */
function isGlue(code: number): boolean {
  return (
    code === 0x22 ||
    code === 0x7b ||
    code === 0x7d ||
    code === 0x5b ||
    code === 0x5d ||
    code === 0x3a ||
    code === 0x2c ||
    code === 0x2e
  );
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}
