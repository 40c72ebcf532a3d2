/**
 * Errors raised while defining and registering tools. Each names the offending
 * value and how to fix it, so a plugin author reads the fix in the stack trace.
 */
export class ToolDefinitionError extends Error {
  override readonly name = "ToolDefinitionError";
}

export class DuplicateToolError extends Error {
  override readonly name = "DuplicateToolError";
  constructor(readonly id: string) {
    super(
      `A tool with id "${id}" is already registered. Tool ids must be unique: rename one of them, or unregister the old one first (registry.unregister("${id}")).`,
    );
  }
}
