import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/core/tools/canonical-json.ts";
import { canonicalSchema, capText, mcpFamilyTools } from "../../src/tools/mcp/index.ts";

/** JSON Schema-shaped values, nested through the keywords the canonicalizer walks and some it must not. */
const { schema } = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
  schema: fc.record(
    {
      type: fc.constantFrom("object", "string", "number", "array", "boolean"),
      description: fc.string({ unit: "grapheme", maxLength: 200 }),
      title: fc.string({ maxLength: 20 }),
      properties: fc.oneof(
        { depthSize: "small" },
        fc.constant({}),
        fc.dictionary(fc.string({ maxLength: 10 }), tie("schema"), { maxKeys: 4 }),
      ),
      items: fc.oneof({ depthSize: "small" }, fc.constant({ type: "string" }), tie("schema")),
      anyOf: fc.oneof(
        { depthSize: "small" },
        fc.constant([]),
        fc.array(tie("schema"), { maxLength: 3 }),
      ),
      default: fc.jsonValue({ maxDepth: 2 }),
      enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
      required: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
      $schema: fc.constant("http://json-schema.org/draft-07/schema#"),
    },
    { requiredKeys: [] },
  ),
}));

/** The same value with every object's keys in another order. */
function permuteKeys(value: unknown, rotate: number): unknown {
  if (Array.isArray(value)) return value.map((item) => permuteKeys(item, rotate));
  if (typeof value !== "object" || value === null) return value;
  const keys = Object.keys(value).reverse();
  const turn = keys.length === 0 ? 0 : rotate % keys.length;
  const order = [...keys.slice(turn), ...keys.slice(0, turn)];
  return Object.fromEntries(
    order.map((key) => [key, permuteKeys((value as Record<string, unknown>)[key], rotate)]),
  );
}

/** Every description the model reads: the ones at schema positions. */
function schemaDescriptions(node: unknown): string[] {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return [];
  const n = node as Record<string, unknown>;
  const found = typeof n.description === "string" ? [n.description] : [];
  const children = [
    ...Object.values((n.properties as Record<string, unknown>) ?? {}),
    ...(Array.isArray(n.anyOf) ? n.anyOf : []),
    n.items,
  ];
  return [...found, ...children.flatMap(schemaDescriptions)];
}

const MAX = 40;

describe("canonicalSchema", () => {
  it("gives the same bytes for the same schema with its keys in any order", () => {
    fc.assert(
      fc.property(schema, fc.nat(), (input, rotate) => {
        const a = canonicalJson(canonicalSchema(input, MAX));
        const b = canonicalJson(canonicalSchema(permuteKeys(input, rotate), MAX));
        expect(b).toBe(a);
      }),
    );
  });

  it("gives a tool the same wire bytes however the server ordered its keys", () => {
    fc.assert(
      fc.property(schema, fc.string({ maxLength: 300 }), fc.nat(), (input, description, rotate) => {
        const listed = { name: "search", description, inputSchema: { ...input, type: "object" } };
        const family = (tool: unknown) =>
          mcpFamilyTools([tool as McpTool], { server: "s", defer: true, descriptionMax: MAX }, () =>
            Promise.resolve(""),
          ).tools[0]?.wire;
        expect(family(permuteKeys(listed, rotate))).toBe(family(listed));
      }),
    );
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(schema, (input) => {
        const once = canonicalSchema(input, MAX);
        expect(canonicalJson(canonicalSchema(once, MAX))).toBe(canonicalJson(once));
      }),
    );
  });

  it("caps every description the model reads", () => {
    fc.assert(
      fc.property(schema, (input) => {
        for (const text of schemaDescriptions(canonicalSchema(input, MAX))) {
          expect(text.length).toBeLessThanOrEqual(MAX);
        }
      }),
    );
  });

  it("drops $schema, makes the root an object, and leaves data that looks like a description alone", () => {
    const long = "d".repeat(100);
    const out = canonicalSchema(
      {
        $schema: "http://json-schema.org/draft-07/schema#",
        properties: {
          filter: { type: "object", description: long, default: { description: long } },
        },
      },
      MAX,
    );
    expect(out).toEqual({
      type: "object",
      properties: {
        filter: {
          type: "object",
          description: `${"d".repeat(MAX - 1)}…`,
          default: { description: long },
        },
      },
    });
  });

  it("keeps a parameter named __proto__ as a parameter", () => {
    const input = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}');
    expect(canonicalJson(canonicalSchema(input, MAX))).toBe(
      '{"properties":{"__proto__":{"type":"string"}},"type":"object"}',
    );
  });
});

describe("capText", () => {
  it("keeps text that fits and cuts longer text to the limit, ending in an ellipsis", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.integer({ min: 1, max: 120 }),
        (text, max) => {
          const out = capText(text, max);
          if (text.length <= max) expect(out).toBe(text);
          else {
            expect(out.length).toBeLessThanOrEqual(max);
            expect(out.endsWith("…")).toBe(true);
            expect(text.startsWith(out.slice(0, -1))).toBe(true);
          }
        },
      ),
    );
  });

  it("never splits a surrogate pair", () => {
    expect(capText("ab😀cdef", 4)).toBe("ab…");
  });
});
