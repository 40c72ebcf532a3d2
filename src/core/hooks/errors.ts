import { namedError } from "../named-error.ts";

/**
 * A hook's prompt template that cannot be read: where (`at`, a character
 * offset), what was found, and what to write instead.
 */
export class HookTemplateError extends namedError("HookTemplateError") {
  constructor(
    readonly at: number,
    readonly found: string,
    readonly fix: string,
  ) {
    super(`${JSON.stringify(found)} at character ${at + 1} cannot be read: ${fix}`);
  }
}
