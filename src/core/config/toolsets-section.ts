import { z } from "zod";
import { defineToolsets, type ToolsetDef, ToolsetError } from "../tools/toolsets.ts";
import { describeValue } from "./errors.ts";
import { isName, isToolsetEntry, NAME_RULE } from "./names.ts";

const entry = z
  .string({
    error: (iss) => `expected a tool id or family, found ${describeValue(iss.input)}.`,
  })
  .refine(isToolsetEntry, {
    error: (iss) =>
      `${describeValue(iss.input)} is not a tool id, a family such as mcp:github, "mcp:*" or "*".`,
  });

const toolsetName = z
  .string({ error: (iss) => `expected a toolset name, found ${describeValue(iss.input)}.` })
  .refine(isName, {
    error: (iss) => `${describeValue(iss.input)} is not a toolset name. Use ${NAME_RULE}.`,
  });

const entries = z.array(entry, {
  error: (iss) =>
    `expected a list of tools, e.g. [web_search, "mcp:*"], found ${describeValue(iss.input)}.`,
});

const includes = z.array(toolsetName, {
  error: (iss) =>
    `expected a list of toolset names, e.g. [research], found ${describeValue(iss.input)}.`,
});

const toolsetMap = z.strictObject(
  { tools: entries.optional(), includes: includes.optional() },
  {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown key ${JSON.stringify(iss.keys[0])}. A toolset takes tools: and includes:.`
        : undefined,
  },
);

/** `research: [web_search]` is shorthand for `research: { tools: [web_search] }`. */
const toolset = z
  .union([entries, toolsetMap], {
    error: (iss) =>
      `expected a list of tools, e.g. [web_search, "mcp:*"], or a map with tools: and includes:, found ${describeValue(iss.input)}.`,
  })
  .transform(
    (def): ToolsetDef =>
      Array.isArray(def)
        ? { tools: def, includes: [] }
        : { tools: def.tools ?? [], includes: def.includes ?? [] },
  );

/**
 * Named presets, merged over the built-ins by {@link defineToolsets}, which
 * also rejects a redefined `full`, unknown includes and cycles. Its message
 * says what is wrong and its culprit where, so the error can name the line.
 */
export const toolsetsSection = z
  .record(z.string(), toolset, {
    error: (iss) =>
      `expected a map of toolset names to tool lists, found ${describeValue(iss.input)}. Put one "name: [tool, ...]" line per toolset under toolsets:.`,
  })
  .superRefine((defs, ctx) => {
    for (const name of Object.keys(defs)) {
      if (!isName(name)) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `${describeValue(name)} is not a toolset name. Use ${NAME_RULE}.`,
        });
      }
    }
  })
  .transform((defs, ctx) => {
    try {
      return defineToolsets(defs);
    } catch (error) {
      if (!(error instanceof ToolsetError)) throw error;
      ctx.addIssue({ code: "custom", path: culpritOf(error), message: error.message });
      return z.NEVER;
    }
  });

/** The key {@link defineToolsets} objected to, as a path under `toolsets:`. */
function culpritOf(error: ToolsetError): (string | number)[] {
  const [name, include] = error.culprit;
  if (name === undefined) return [];
  return include === undefined ? [name] : [name, "includes", include];
}
