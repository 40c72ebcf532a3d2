import { MAX_ARGUMENT_DEPTH, withheldArguments } from "../core/tools/arguments.ts";

/**
 * What a tool call carries instead of arguments it may not have: a marker the
 * loop recognises (see `withheldArguments`), so the model reads why its call
 * did not run, the tool never sees the arguments, and history keeps a short
 * marker, not megabytes that would be sent back on every later step.
 */
export function oversizedArguments(chars: number, maxChars: number): string {
  return withheldArguments({ kind: "size", chars, maxChars });
}

/**
 * The replacement for arguments nested too deeply, or `undefined` when they
 * are fine. The code that walks arguments after the loop parses them (schema
 * validation, `JSON.stringify` in MCP clients) recurses, and overflows the
 * stack some thousands of levels down; the loop refuses the same depth.
 */
export function nestingProblem(args: string): string | undefined {
  return nestedDeeperThan(args, MAX_ARGUMENT_DEPTH)
    ? withheldArguments({ kind: "depth" })
    : undefined;
}

/** Counts brackets outside strings; malformed JSON is the loop's to report, so it is only scanned. */
export function nestedDeeperThan(json: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}
