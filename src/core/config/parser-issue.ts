import { z } from "zod";

/** The class of error a parser throws for bad input; anything else it throws is a bug, and stays thrown. */
type InputErrorClass = abstract new (...args: never[]) => Error;

/** Runs `parse`; its input error becomes the issue, whose message (naming the token and the fix) is what people read. */
function parseOrIssue<T>(
  parse: (text: string) => T,
  failure: InputErrorClass,
  text: string,
  ctx: z.core.$RefinementCtx<string>,
): T | typeof z.NEVER {
  try {
    return parse(text);
  } catch (error) {
    if (!(error instanceof failure)) throw error;
    ctx.addIssue({ code: "custom", message: error.message });
    return z.NEVER;
  }
}

/**
 * A transform of text through one of our parsers, for `.transform(...)`.
 *
 * @example
 * z.string().transform(parsedBy(parseLoadMode, UnknownModeError));
 */
export function parsedBy<T>(parse: (text: string) => T, failure: InputErrorClass) {
  return (text: string, ctx: z.core.$RefinementCtx<string>): T =>
    parseOrIssue(parse, failure, text, ctx) as T;
}

/** A check that `parse` reads the text, keeping the text itself, for `.superRefine(...)`. */
export function checkedBy(parse: (text: string) => unknown, failure: InputErrorClass) {
  return (text: string, ctx: z.core.$RefinementCtx<string>): void => {
    parseOrIssue(parse, failure, text, ctx);
  };
}
