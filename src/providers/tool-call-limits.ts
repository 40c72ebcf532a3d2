import { randomUUID } from "node:crypto";
import type { ToolCall } from "../core/agent/messages.ts";
import type { ModelLimits } from "../core/config/model-section.ts";
import { MAX_ARGUMENT_DEPTH, withheldArguments } from "../core/tools/arguments.ts";

/** A tool call as a stream assembles it from its pieces. */
export interface ToolCallDraft {
  id: string;
  name: string;
  arguments: string;
  /** Every argument character the model sent, including those past the cap. */
  chars: number;
}

/**
 * The call the loop gets from a finished draft: arguments within the caps,
 * and an id made up (with the API's own `idPrefix`) when the model sent none.
 */
export function finishedToolCall(
  draft: ToolCallDraft,
  limits: Pick<ModelLimits, "maxToolCallChars">,
  idPrefix: string,
): ToolCall {
  const args =
    draft.chars > limits.maxToolCallChars
      ? oversizedArguments(draft.chars, limits.maxToolCallChars)
      : (nestingProblem(draft.arguments) ?? draft.arguments);
  return {
    // A tool call without an id could not be paired with its result (rule 6).
    id: draft.id || `${idPrefix}${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    type: "function",
    // A call without arguments streams none; "{}" is what it means and what servers accept back.
    function: { name: draft.name, arguments: args || "{}" },
  };
}

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
