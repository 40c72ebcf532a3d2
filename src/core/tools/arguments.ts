import type { z } from "zod";
import type { Reading, Refusal } from "../reading.ts";
import type { AnyTool } from "./tool.ts";
import { type UnknownKey, unknownKeys } from "./unknown-keys.ts";

/**
 * The most argument JSON one call may carry. A tool's arguments are a few
 * named values; megabytes are a runaway model, and every byte would be parsed,
 * validated and stored in the conversation.
 */
export const MAX_ARGUMENT_BYTES = 1024 * 1024;

/**
 * How deep arguments may nest. Tool schemas are a few levels deep; a value
 * nested thousands deep would overflow the stack of whatever recurses on it
 * later (a validator, a serializer, an MCP client).
 */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * What a provider puts in a tool call in place of arguments it would not
 * keep while the reply streamed in: too many characters, or too deep. The
 * loop answers the call with the same words as for arguments it refused
 * itself, and history keeps this short marker, not the megabytes.
 */
export type WithheldArguments =
  | { readonly kind: "size"; readonly chars: number; readonly maxChars: number }
  | { readonly kind: "depth" };

const WITHHELD = "\u0000withheld:";

export function withheldArguments(why: WithheldArguments): string {
  return why.kind === "size" ? `${WITHHELD}size:${why.chars}:${why.maxChars}` : `${WITHHELD}depth`;
}

function withheldProblem(tool: string, text: string): string | undefined {
  if (!text.startsWith(WITHHELD)) return undefined;
  const [kind, chars, maxChars] = text.slice(WITHHELD.length).split(":");
  if (kind === "depth") return deepProblem(tool);
  return `The arguments for ${tool} were not used: ${chars} characters, more than the ${maxChars} one tool call may have. Call it again with only the values it needs; send long content in smaller parts.`;
}

function deepProblem(tool: string): string {
  return `The arguments for ${tool} nest deeper than ${MAX_ARGUMENT_DEPTH} levels, the limit. Call it again with flatter arguments, as its parameters describe them.`;
}

/** Arguments as the model sent them, read; or why they cannot be, worded for the model. */
export type ArgumentsReading = Reading<"args", Readonly<Record<string, unknown>>>;

/**
 * Reads a tool call's `arguments` string. Empty text is no arguments. Text
 * over {@link MAX_ARGUMENT_BYTES}, text that is not JSON, JSON that is not an
 * object and JSON nested deeper than {@link MAX_ARGUMENT_DEPTH} each get a
 * message saying what to send instead; none of them throws.
 *
 * @example
 * parseToolArguments("current_time", '{"timeZone":"UTC"}') // { ok: true, args: { timeZone: "UTC" } }
 */
export function parseToolArguments(tool: string, text: string): ArgumentsReading {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_ARGUMENT_BYTES) {
    return refuse(
      `The arguments for ${tool} are ${bytes} bytes of JSON; the limit is ${MAX_ARGUMENT_BYTES} bytes (1 MiB). Call it again with only the values it needs; send long content in smaller parts.`,
    );
  }
  const withheld = withheldProblem(tool, text);
  if (withheld) return refuse(withheld);
  if (text.trim() === "") return { ok: true, args: {} };
  let value: unknown;
  try {
    // V8's JSON.parse does not recurse, so deep text is read here and refused below.
    value = JSON.parse(text);
  } catch {
    return refuse(
      `The arguments for ${tool} were not valid JSON (${excerpt(text)}). Call it again with a JSON object of named arguments, e.g. {"name": "value"}.`,
    );
  }
  return objectArguments(tool, value);
}

/** Parsed arguments checked for shape: an object, nested at most {@link MAX_ARGUMENT_DEPTH} deep. */
export function objectArguments(tool: string, value: unknown): ArgumentsReading {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return refuse(
      `The arguments for ${tool} must be a JSON object of named arguments, e.g. {"name": "value"}, not ${kindOf(value)}. Call it again with an object.`,
    );
  }
  if (deeperThan(value, MAX_ARGUMENT_DEPTH)) return refuse(deepProblem(tool));
  return { ok: true, args: value as Record<string, unknown> };
}

export type ArgumentsCheck<T = unknown> = Reading<"args", T>;

/**
 * Checks parsed arguments against a tool: their shape, keys the schema does
 * not take (see {@link unknownKeys}: a zod tool takes only the keys it
 * lists, at every level; a JSON Schema tool refuses others only where its
 * schema says `additionalProperties: false`), then the schema itself. The
 * problem names every key to fix and, for a misspelt one, the key meant, so
 * the model can correct the call.
 */
export function checkArguments(tool: AnyTool, raw: unknown): ArgumentsCheck {
  const shaped = objectArguments(tool.id, raw);
  if (!shaped.ok) return shaped;
  const unknown = unknownKeys(tool.jsonSchema, shaped.args, tool.keyPolicy);
  let parsed: z.ZodSafeParseResult<unknown>;
  try {
    parsed = tool.parameters.safeParse(shaped.args);
  } catch (error) {
    // A validator that throws (a recursive schema, a refinement with a bug) is the tool's
    // problem, but the call still gets an answer rather than ending the turn.
    return refuse(
      `Invalid arguments for ${tool.id}: its arguments could not be checked (${(error as Error).message}). Call it again with simpler arguments.`,
    );
  }
  if (unknown.length === 0 && parsed.success) return { ok: true, args: parsed.data };
  const issues = parsed.success
    ? []
    : parsed.error.issues
        // Keys the schema refuses are already reported, with what was meant.
        .filter((issue) => unknown.length === 0 || issue.code !== "unrecognized_keys")
        .map((issue) => `${renderKeyPath(issue.path) || "(arguments)"}: ${issue.message}`);
  const problems = [...unknown.map((key) => unknownKeyProblem(tool.id, key)), ...issues];
  const shown = problems.slice(0, 5);
  const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : "";
  return refuse(
    `Invalid arguments for ${tool.id}: ${shown.join("; ")}${more}. Fix them and call it again.`,
  );
}

/** `unknown argument "time_zone" (did you mean "timeZone"?); current_time takes: timeZone`. */
function unknownKeyProblem(tool: string, { path, key, expected, suggestion }: UnknownKey): string {
  const where = path.length === 0 ? "" : `${renderKeyPath(path)}: `;
  const what = path.length === 0 ? "argument" : "key";
  const meant = suggestion === undefined ? "" : ` (did you mean ${JSON.stringify(suggestion)}?)`;
  const owner = path.length === 0 ? tool : renderKeyPath(path);
  const takes =
    expected.length === 0
      ? `${owner} takes no ${what}s`
      : `${owner} takes: ${expected.slice(0, 20).join(", ")}${expected.length > 20 ? ", …" : ""}`;
  return `${where}unknown ${what} ${JSON.stringify(excerptKey(key))}${meant}; ${takes}`;
}

/** Whether `value` has containers nested more than `limit` deep; iterative, so any depth is safe. */
function deeperThan(value: object, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node as object);
    for (const child of children) {
      if (typeof child === "object" && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return "a string";
  return `a ${typeof value}`;
}

function excerpt(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 200)}…`;
}

function excerptKey(key: string): string {
  return key.length <= 64 ? key : `${key.slice(0, 64)}…`;
}

/** `["location", "stops", 0]` -> `location.stops[0]`. */
function renderKeyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

function refuse(problem: string): Refusal {
  return { ok: false, problem };
}
