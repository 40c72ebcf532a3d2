/** Synthetic registries of any size, built from a few realistic templates, the same on every run. */
import { z } from "zod";
import {
  type AnyTool,
  defineJsonSchemaTool,
  defineTool,
  type JsonSchema,
} from "../../src/core/tools/tool.ts";
import { inputSchema, num, str, strArray, strEnum } from "./mcp-schema.ts";

// ---------------------------------------------------------------------------
// Synthetic registries
// ---------------------------------------------------------------------------

interface SyntheticFamily {
  /** `undefined` for built-in style tools. */
  readonly family: string | undefined;
  readonly capability: string | undefined;
  readonly product: string;
  readonly nouns: readonly string[];
}

const SYNTHETIC_FAMILIES: readonly SyntheticFamily[] = [
  {
    family: undefined,
    capability: undefined,
    product: "the workspace",
    nouns: ["note", "task", "bookmark", "snippet"],
  },
  {
    family: "plugin:crm",
    capability: "network",
    product: "the CRM",
    nouns: ["contact", "deal", "company", "activity"],
  },
  {
    family: "plugin:analytics",
    capability: "database",
    product: "the analytics warehouse",
    nouns: ["dashboard", "report", "metric", "segment"],
  },
  {
    family: "plugin:devops",
    capability: "sandbox",
    product: "the deployment platform",
    nouns: ["deployment", "pipeline", "environment", "secret"],
  },
  {
    family: "mcp:notion",
    capability: undefined,
    product: "Notion",
    nouns: ["page", "database", "block", "comment"],
  },
  {
    family: "mcp:linear",
    capability: undefined,
    product: "Linear",
    nouns: ["issue", "project", "cycle", "team"],
  },
  {
    family: "mcp:sentry",
    capability: undefined,
    product: "Sentry",
    nouns: ["event", "issue", "release", "alert_rule"],
  },
  {
    family: "mcp:postgres",
    capability: undefined,
    product: "the Postgres database",
    nouns: ["table", "view", "index", "query_plan"],
  },
  {
    family: "mcp:zendesk",
    capability: undefined,
    product: "Zendesk",
    nouns: ["ticket", "macro", "customer", "article"],
  },
];

type Template = "get" | "list" | "create" | "update";
const TEMPLATES: readonly Template[] = ["get", "list", "list", "create", "update", "get"];

/**
 * `n` deterministic tools of realistic size for scaling benchmarks (50, 200,
 * 1,000 tools). Tool `i` depends only on `i`, so a smaller registry is a
 * prefix of a larger one. About one in five is marked `defer`.
 */
export function syntheticTools(n: number): AnyTool[] {
  const tools: AnyTool[] = [];
  for (let i = 0; i < n; i++) tools.push(syntheticTool(i));
  return tools;
}

function syntheticTool(i: number): AnyTool {
  const random = mulberry32(0x5eed + i * 7919);
  const spec = pick(SYNTHETIC_FAMILIES, random);
  const noun = pick(spec.nouns, random);
  const template = pick(TEMPLATES, random);
  const defer = random() < 0.2;
  const verb = template === "list" ? "search" : template;
  const name = `${verb}_${template === "list" ? `${noun}s` : noun}_${i}`;
  const label = noun.replaceAll("_", " ");
  const description = describeSynthetic(template, label, spec.product, i);
  const result = `${template} ${label} ok (${i})`;

  if (spec.family?.startsWith("mcp:")) {
    const server = spec.family.slice("mcp:".length);
    return defineJsonSchemaTool({
      id: `mcp__${server}__${name}`,
      description,
      inputSchema: syntheticJsonSchema(template, label, spec.product),
      family: spec.family,
      defer,
      execute: () => result,
    });
  }
  const prefix = spec.family ? `${spec.family.slice(spec.family.indexOf(":") + 1)}_` : "";
  return defineTool({
    id: `${prefix}${name}`,
    description,
    parameters: syntheticZodSchema(template, label, spec.product),
    ...(spec.family ? { family: spec.family } : {}),
    ...(spec.capability ? { capability: spec.capability } : {}),
    defer,
    execute: () => result,
  });
}

function describeSynthetic(template: Template, label: string, product: string, i: number): string {
  switch (template) {
    case "get":
      return `Get one ${label} from ${product} by id, with all of its fields, owners and timestamps. Use it after a search when you need the full record (variant ${i}).`;
    case "list":
      return `Search ${label}s in ${product} by text and filters, newest first. Returns ids, names, status and last update for each match; page with cursor for more. Prefer narrow filters over reading many pages (variant ${i}).`;
    case "create":
      return `Create a new ${label} in ${product}. Confirm the important fields with the user before creating anything visible to others, and report the new id and link back to them (variant ${i}).`;
    case "update":
      return `Update fields of an existing ${label} in ${product}. Only the fields you pass change; lists you pass replace the current ones. Read it first if you need its current state (variant ${i}).`;
  }
}

function syntheticZodSchema(template: Template, label: string, product: string) {
  const id = z.string().describe(`The ${label} id as shown in ${product}.`);
  switch (template) {
    case "get":
      return z.object({
        id,
        fields: z
          .array(z.string())
          .optional()
          .describe("Only return these fields; omit for all of them."),
      });
    case "list":
      return z.object({
        query: z
          .string()
          .optional()
          .describe(`Free text matched against ${label} names and descriptions.`),
        status: z
          .enum(["open", "in_progress", "blocked", "done", "archived", "any"])
          .default("any")
          .describe("Only return items in this status."),
        owner: z.string().optional().describe('A user id or "me".'),
        createdAfter: z
          .string()
          .optional()
          .describe("ISO 8601 date; only items created on or after it."),
        createdBefore: z
          .string()
          .optional()
          .describe("ISO 8601 date; only items created before it."),
        sort: z
          .enum(["relevance", "created", "updated", "name"])
          .default("relevance")
          .describe("Sort key."),
        order: z.enum(["asc", "desc"]).default("desc").describe("Sort direction."),
        limit: z.number().int().min(1).max(100).default(25).describe("Items per page."),
        cursor: z.string().optional().describe("The nextCursor from the previous page."),
      });
    case "create":
    case "update":
      return z.object({
        ...(template === "update" ? { id } : {}),
        name: z.string().max(300).describe(`Name or title of the ${label}.`),
        description: z.string().max(20000).optional().describe("Longer text, Markdown allowed."),
        priority: z
          .enum(["none", "low", "medium", "high", "urgent"])
          .default("none")
          .describe("Priority."),
        labels: z.array(z.string()).optional().describe("Labels or tags to apply."),
        assignees: z.array(z.string()).optional().describe("User ids responsible for it."),
        dueDate: z.string().optional().describe("ISO 8601 due date."),
        customFields: z
          .array(
            z.object({
              key: z.string().describe("Custom field key."),
              value: z.union([z.string(), z.number(), z.boolean()]).describe("Field value."),
            }),
          )
          .optional()
          .describe(`Values for custom fields defined in ${product}.`),
        notify: z.boolean().default(true).describe("Notify watchers and assignees of the change."),
        visibility: z
          .enum(["private", "team", "organization"])
          .default("team")
          .describe("Who can see it."),
      });
  }
}

function syntheticJsonSchema(template: Template, label: string, product: string): JsonSchema {
  const id = str(`The ${label} id as shown in ${product}`);
  switch (template) {
    case "get":
      return inputSchema(
        { id, fields: strArray("Only return these fields; omit for all of them") },
        ["id"],
      );
    case "list":
      return inputSchema({
        query: str(`Free text matched against ${label} names and descriptions`),
        filter: {
          type: "object",
          properties: {
            status: strEnum(
              ["open", "in_progress", "blocked", "done", "archived"],
              "Status to match",
            ),
            owner: str('A user id or "me"'),
            created_after: str("ISO 8601 date; only items created on or after it"),
            created_before: str("ISO 8601 date; only items created before it"),
          },
          additionalProperties: false,
          description: "Structured filters, combined with AND",
        },
        sort: strEnum(["relevance", "created", "updated", "name"], "Sort key"),
        page_size: num("Results per page (1-100, default 25)"),
        start_cursor: str("The next_cursor from a previous response"),
      });
    case "create":
    case "update":
      return inputSchema(
        {
          ...(template === "update" ? { id } : {}),
          title: str(`Title of the ${label}`),
          content: str("Body text in Markdown"),
          properties: {
            type: "object",
            additionalProperties: { type: ["string", "number", "boolean", "null"] },
            description: `Property values keyed by property name, as configured in ${product}`,
          },
          parent_id: str("Id of the parent container, when the item is nested"),
          labels: strArray("Labels to apply"),
          assignee_ids: strArray("User ids to assign"),
          priority: {
            type: "integer",
            minimum: 0,
            maximum: 4,
            description: "0 = none, 1 = urgent ... 4 = low",
          },
        },
        template === "update" ? ["id"] : ["title"],
      );
  }
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** A tiny seeded PRNG, so synthetic registries are identical on every run and machine. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
