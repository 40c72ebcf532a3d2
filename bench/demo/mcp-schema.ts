/** Helpers for MCP-style tools whose parameters arrive as JSON Schema. */
import { type AnyTool, defineJsonSchemaTool, type JsonSchema } from "../../src/core/tools/tool.ts";

// ---------------------------------------------------------------------------
// MCP servers. Schemas are shaped like zod-to-json-schema output, which is
// what the reference servers send in `tools/list`.
// ---------------------------------------------------------------------------

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

export function inputSchema(
  properties: Record<string, JsonSchema>,
  required: string[] = [],
): JsonSchema {
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    $schema: DRAFT_07,
  };
}

export const str = (description: string): JsonSchema => ({ type: "string", description });
export const num = (description: string): JsonSchema => ({ type: "number", description });
export const bool = (description: string): JsonSchema => ({ type: "boolean", description });
export const strEnum = (values: string[], description: string): JsonSchema => ({
  type: "string",
  enum: values,
  description,
});
export const strArray = (description: string): JsonSchema => ({
  type: "array",
  items: { type: "string" },
  description,
});

export function mcpTool(
  server: string,
  name: string,
  description: string,
  schema: JsonSchema,
  result: string,
): AnyTool {
  return defineJsonSchemaTool({
    id: `mcp__${server}__${name}`,
    description,
    inputSchema: schema,
    family: `mcp:${server}`,
    defer: true,
    execute: () => result,
  });
}
