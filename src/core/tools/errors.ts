import { namedError } from "../named-error.ts";

/**
 * Errors raised while defining and registering tools. Each names the offending
 * value and how to fix it, so a plugin author reads the fix in the stack trace.
 */
export class ToolDefinitionError extends namedError("ToolDefinitionError") {}

/**
 * Two tools with one id. `fix` is the remedy where the caller knows a better
 * one than the registry's (a bot's tool that takes a built-in's id).
 */
export class DuplicateToolError extends namedError("DuplicateToolError") {
  constructor(
    readonly id: string,
    fix = `Tool ids must be unique: rename one of them, or unregister the old one first (registry.unregister("${id}")).`,
  ) {
    super(`A tool with id "${id}" is already registered. ${fix}`);
  }
}
