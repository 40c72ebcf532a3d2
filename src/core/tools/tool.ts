import { createHash } from "node:crypto";
import { z } from "zod";
import { TOOL_ID_PATTERN } from "../availability/keys.ts";
import type { SkillResolution } from "../skills/resolve.ts";
import { canonicalJson } from "./canonical-json.ts";
import { ToolDefinitionError } from "./errors.ts";
import type { ToolOutput } from "./tool-result.ts";

/** A JSON Schema object, as it goes on the wire in a function tool's `parameters`. */
export type JsonSchema = { readonly [key: string]: unknown };

/**
 * How a tool's schema treats keys it does not list. `closed`: every object
 * with `properties` takes only those, unless it says otherwise
 * (`additionalProperties: {}` from `z.looseObject`, a schema from
 * `.catchall` or `z.record`): a zod tool's arguments. `declared`: only
 * objects with `additionalProperties: false` (or `unevaluatedProperties:
 * false`) refuse other keys: a JSON Schema tool's, such as an MCP server's,
 * whose schema that allows extra keys must keep allowing them.
 */
export type KeyPolicy = "closed" | "declared";

/**
 * What a tool sees when it runs. The shell fills it in; tools never reach for
 * globals, so a tool can be tested with a hand-made context.
 */
export interface ToolContext {
  /** Aborted when the tool's time is up or the turn is cancelled. */
  readonly signal: AbortSignal;
  readonly platform: string;
  /** The bot account the conversation is with, when the platform has several (ConversationAddress.account). */
  readonly account?: string;
  readonly workspace: string;
  readonly channel: string;
  readonly conversation: string;
  /** The thread the turn answers in, where the platform has threads (a reply posted later goes there). */
  readonly thread?: string;
  /** The person whose message started the turn. */
  readonly user: string;
  /** Their display name, when the platform gave one. */
  readonly userName?: string;
  /** A direct message with the bot, or a group conversation, as the channel saw the message. */
  readonly kind?: "dm" | "group";
  /**
   * Unique to this call, and the same when a resumed turn repeats it after a
   * crash: the idempotency key for a tool's effects (a post, a reminder), so
   * they happen once (rule 9).
   */
  readonly callKey?: string;
  /** The conversation's skills as frozen for this turn (what the `skill` tool answers from). */
  readonly skills?: SkillResolution;
}

/**
 * A tool result is text for the model (structured results are JSON-encoded
 * by the tool), or text and files made with `toolResult`.
 */
export type { ToolOutput };

export interface ToolSpec<P extends z.ZodType = z.ZodType> {
  /** Unique, `[A-Za-z0-9_-]{1,64}` (the providers' function-name rule). */
  id: string;
  /** What the model reads to decide when to call it. */
  description: string;
  /** Arguments, as a zod object; validated before `execute` runs. */
  parameters: P;
  execute: (args: z.output<P>, ctx: ToolContext) => ToolOutput | Promise<ToolOutput>;
  /** A capability the host must have (e.g. `web_search`); absent means the tool is off at the floor. */
  capability?: string;
  /** Big or rarely used: ship only its name until discovery loads it. */
  defer?: boolean;
  /** A family key such as `mcp:github`; every scope can switch the family as one. */
  family?: string;
  /** How long one call may run before it is answered with a timeout; the runner's default otherwise. */
  timeoutMs?: number;
  /**
   * The tool changes something outside the conversation (posts, schedules)
   * and does it once per `ctx.callKey`. A turn stores the model's calls
   * before running such a tool, so a worker that crashes mid-call is
   * replaced by one that repeats the same calls, with the same keys, rather
   * than asking the model anew.
   */
  effects?: boolean;
  /**
   * The tool's own default for calls: `ask` makes each call wait for a
   * person's approval wherever the tool is on, unless a person's explicit
   * `on` for the tool's id or its family (`mcp:github`) decides it. An `on`
   * from `all` or the aggregate `mcp` keeps the default, so `all: on` never
   * silently removes a safety check. Give `ask` to tools whose effects reach
   * past the conversation (a post elsewhere, a write, a delete). Unset or
   * `on`: calls run without asking. The model never sees the difference.
   *
   * @example
   * defineTool({ id: "delete_file", approval: "ask", ... });
   */
  approval?: "ask" | "on";
}

/**
 * A defined tool: the spec plus its wire form, computed once. `wire` is the
 * canonical JSON of the tool as the provider's `tools` array holds it, so
 * freezing a turn joins cached strings instead of re-serializing schemas.
 */
export interface Tool<P extends z.ZodType = z.ZodType> extends Readonly<ToolSpec<P>> {
  readonly jsonSchema: JsonSchema;
  readonly wire: string;
  /** A digest of `wire`, so a contract hash covers the bytes without rehashing them every turn. */
  readonly digest: string;
  /**
   * Which argument keys the schema refuses: a zod tool every key it does not
   * list, at every level (`closed`); a JSON Schema tool only where its schema
   * says `additionalProperties: false` (`declared`).
   */
  readonly keyPolicy: KeyPolicy;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type.
export type AnyTool = Tool<any>;

export { TOOL_ID_PATTERN };
export const FAMILY_PATTERN = /^[a-z][a-z0-9_-]*(:[A-Za-z0-9_.-]+)?$/;

/** Availability keys with meaning of their own, which no tool may take as its id. */
export const RESERVED_IDS: ReadonlySet<string> = new Set([
  "mcp",
  "all",
  "tool_search",
  "__proto__",
]);

/**
 * Define a tool.
 *
 * @example
 * const currentTime = defineTool({
 *   id: "current_time",
 *   description: "The current date and time in a given IANA time zone.",
 *   parameters: z.object({ timeZone: z.string().describe("e.g. Europe/Paris") }),
 *   execute: ({ timeZone }) => new Date().toLocaleString("en-GB", { timeZone }),
 * });
 */
export function defineTool<P extends z.ZodType>(spec: ToolSpec<P>): Tool<P> {
  checkId(spec.id);
  if (RESERVED_IDS.has(spec.id)) {
    throw new ToolDefinitionError(
      `Tool id "${spec.id}" is reserved (it is an availability key or the discovery tool). Choose another id.`,
    );
  }
  if (typeof spec.description !== "string" || spec.description.trim() === "") {
    throw new ToolDefinitionError(
      `Tool "${spec.id}" has no description. The model decides when to call a tool from its description: write one sentence saying what it does.`,
    );
  }
  if (spec.family !== undefined && !FAMILY_PATTERN.test(spec.family)) {
    throw new ToolDefinitionError(
      `Tool "${spec.id}" has family "${spec.family}", which is not a family key. Use a lowercase name, optionally with a ":sub" part, like "mcp:github".`,
    );
  }
  if (spec.id.startsWith("mcp__") && !spec.family?.startsWith("mcp:")) {
    throw new ToolDefinitionError(
      `Tool "${spec.id}" is named like an MCP tool but has no "mcp:<server>" family. Give it family "mcp:<server>" or rename it.`,
    );
  }
  if (spec.approval !== undefined && spec.approval !== "ask" && spec.approval !== "on") {
    throw new ToolDefinitionError(
      `Tool "${spec.id}" has approval ${JSON.stringify(spec.approval)}. Use approval: "ask" (each call waits for a person's approval) or leave it out (calls run without asking).`,
    );
  }
  const jsonSchema = toJsonSchema(spec.id, spec.parameters);
  const wire = wireOf(spec.id, spec.description, jsonSchema);
  return Object.freeze({
    ...spec,
    jsonSchema,
    wire,
    digest: digestOf(wire),
    keyPolicy: "closed" as const,
  });
}

/**
 * A tool whose parameters arrive as JSON Schema (an MCP server's `inputSchema`).
 * Arguments are checked only for keys the schema refuses
 * (`additionalProperties: false`), so a misspelt key gets a correctable
 * answer instead of a call with defaults; the server validates the rest.
 *
 * @example
 * const echo = defineJsonSchemaTool({
 *   id: "echo",
 *   description: "Says the text back.",
 *   inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   execute: (args) => String(args.text),
 * });
 */
export function defineJsonSchemaTool(
  spec: Omit<ToolSpec<JsonSchemaArgs>, "parameters"> & { inputSchema: JsonSchema },
): Tool<JsonSchemaArgs> {
  const { inputSchema, ...rest } = spec;
  const tool = defineTool({ ...rest, parameters: jsonSchemaArgs });
  const wire = wireOf(spec.id, spec.description, inputSchema);
  return Object.freeze({
    ...tool,
    jsonSchema: inputSchema,
    wire,
    digest: digestOf(wire),
    keyPolicy: "declared" as const,
  });
}

const jsonSchemaArgs = z.record(z.string(), z.unknown());
type JsonSchemaArgs = typeof jsonSchemaArgs;

/**
 * The Chat Completions function-tool shape, in canonical bytes. The string is
 * copied flat once here: serializers build strings by concatenation, and a
 * rope would be re-walked every time a turn joins the tools array.
 */
export function wireOf(id: string, description: string, parameters: JsonSchema): string {
  const text = canonicalJson({ type: "function", function: { name: id, description, parameters } });
  return Buffer.from(text, "utf8").toString("utf8");
}

export function digestOf(wire: string): string {
  return createHash("sha256").update(wire).digest("hex").slice(0, 32);
}

function checkId(id: string): void {
  if (typeof id !== "string" || !TOOL_ID_PATTERN.test(id)) {
    throw new ToolDefinitionError(
      `Tool id ${JSON.stringify(id)} is not allowed. Use 1 to 64 letters, digits, "_" or "-" (providers reject other function names), e.g. "web_search".`,
    );
  }
}

function toJsonSchema(id: string, parameters: z.ZodType): JsonSchema {
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(parameters, { io: "input" }) as Record<string, unknown>;
  } catch (error) {
    throw new ToolDefinitionError(
      `Tool "${id}" has parameters that cannot be expressed as JSON Schema (${(error as Error).message}). Use plain zod types: objects, strings, numbers, enums, arrays.`,
    );
  }
  if (schema.type !== "object") {
    throw new ToolDefinitionError(
      `Tool "${id}" must take an object of named arguments; wrap them in z.object({ ... }).`,
    );
  }
  const { $schema: _dropped, ...rest } = schema;
  return rest;
}
