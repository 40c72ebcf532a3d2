/**
 * What a tool call carries instead of arguments it may not have. The text is
 * deliberately not JSON: the loop answers the call with "the arguments were
 * not valid JSON (<this text>)", so the model reads why its call did not run
 * and the tool never sees the arguments. History keeps this short text, not
 * megabytes that would be sent back on every later step.
 */

/**
 * Deeper than any tool schema nests. The code that walks arguments after the
 * loop parses them (schema validation, `JSON.stringify` in MCP clients)
 * recurses, and overflows the stack some thousands of levels down.
 */
export const MAX_ARGUMENT_DEPTH = 64;

export function oversizedArguments(chars: number, maxChars: number): string {
  return `arguments not used: ${chars} characters, more than the ${maxChars} one tool call may have. Send less in one call`;
}

/** The replacement for arguments nested too deeply, or `undefined` when they are fine. */
export function nestingProblem(args: string): string | undefined {
  return nestedDeeperThan(args, MAX_ARGUMENT_DEPTH)
    ? `arguments not used: nested more than ${MAX_ARGUMENT_DEPTH} levels deep. Send flatter JSON`
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
