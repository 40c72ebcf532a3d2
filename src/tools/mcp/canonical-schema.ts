import { canonicalJson } from "../../core/tools/canonical-json.ts";
import type { JsonSchema } from "../../core/tools/tool.ts";

/**
 * An MCP tool's `inputSchema` as it goes into the tools array.
 *
 * The tools array is the root of the provider's prompt cache (DESIGN rule 2),
 * and MCP servers are free to send the same schema with keys in any order, a
 * `$schema` line, or paragraphs of description. So the schema is rebuilt with
 * sorted keys, without `$schema`, and with every description (the tool's and
 * each parameter's) cut to `descriptionMax` characters: the same input gives
 * the same bytes in every process and after every reconnect.
 */
export function canonicalSchema(schema: unknown, descriptionMax: number): JsonSchema {
  const source = isObject(schema) ? schema : {};
  const { $schema: _dropped, ...rest } = source;
  const node = capDescriptions(rest, descriptionMax) as Record<string, unknown>;
  // Providers want an object of named arguments; MCP servers must send one, some omit `type`.
  const object = { ...node, type: "object" };
  return JSON.parse(canonicalJson(object)) as JsonSchema;
}

/**
 * Cuts text to `max` characters, the last being an ellipsis, without
 * splitting a surrogate pair (a lone half would serialize as an escape).
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end).trimEnd()}…`;
}

/** Keywords whose value is a schema. */
const SCHEMA_KEYS = new Set([
  "additionalItems",
  "additionalProperties",
  "contains",
  "else",
  "if",
  "items",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
]);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYS = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYS = new Set([
  "$defs",
  "definitions",
  "dependentSchemas",
  "patternProperties",
  "properties",
]);

/**
 * Walks schema keywords only: a `description` inside a `default`, `enum` or
 * `examples` value is data, not documentation, and stays as it is.
 */
function capDescriptions(node: unknown, max: number): unknown {
  if (!isObject(node)) return node;
  // fromEntries, not assignment: a property named "__proto__" must stay a property.
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => {
      if (key === "description" && typeof value === "string") return [key, capText(value, max)];
      if (SCHEMA_LIST_KEYS.has(key) && Array.isArray(value))
        return [key, value.map((item) => capDescriptions(item, max))];
      if (SCHEMA_KEYS.has(key)) return [key, capDescriptions(value, max)];
      if (SCHEMA_MAP_KEYS.has(key) && isObject(value))
        return [
          key,
          Object.fromEntries(
            Object.entries(value).map(([name, schema]) => [name, capDescriptions(schema, max)]),
          ),
        ];
      return [key, value];
    }),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
