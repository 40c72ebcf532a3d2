import fc from "fast-check";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_COMMAND_POLICY } from "../../src/core/commands/permissions.ts";
import { DEFAULT_MEMORY } from "../../src/core/config/memory-section.ts";
import { DEFAULT_REMINDERS } from "../../src/core/config/reminders-section.ts";
import { defineSkillTool } from "../../src/core/skills/skill-tool.ts";
import {
  checkArguments,
  MAX_ARGUMENT_BYTES,
  MAX_ARGUMENT_DEPTH,
  parseToolArguments,
} from "../../src/core/tools/arguments.ts";
import {
  type AnyTool,
  defineJsonSchemaTool,
  defineTool,
  type JsonSchema,
} from "../../src/core/tools/tool.ts";
import { closest, unknownKeys } from "../../src/core/tools/unknown-keys.ts";
import type { ScheduleDesk } from "../../src/ports/schedules.ts";
import { currentTimeTool } from "../../src/tools/current-time.ts";
import { MemoryStore } from "../../src/tools/memory/memory-store.ts";
import { forgetTool, recallTool, rememberTool } from "../../src/tools/memory/memory-tools.ts";
import {
  cancelReminderTool,
  listRemindersTool,
  setReminderTool,
} from "../../src/tools/reminders/reminder-tools.ts";
import type { ReminderSchedule } from "../../src/tools/reminders/schedule.ts";
import { scheduleTaskTool } from "../../src/tools/schedule-task.ts";
import { type MessagingPorts, sendMessageTool } from "../../src/tools/send-message.ts";
import { fetchUrlTool } from "../../src/tools/web/fetch-url.ts";
import { webSearchTool } from "../../src/tools/web/web-search.ts";
import { runTool } from "../../src/turn/tool-runner.ts";
import { realisticTools } from "../fixtures/realistic-tools.ts";

const context = { platform: "console", workspace: "w", channel: "c", conversation: "v", user: "u" };
const call = { id: "call_1", type: "function" as const, function: { name: "t", arguments: "{}" } };

function problemOf(tool: AnyTool, args: unknown): string {
  const checked = checkArguments(tool, args);
  if (checked.ok) throw new Error(`expected ${tool.id} to refuse ${JSON.stringify(args)}`);
  return checked.problem;
}

const trip = defineTool({
  id: "plan_trip",
  description: "Plans a trip.",
  parameters: z.object({
    location: z.object({ city: z.string(), zipCode: z.string().optional() }),
    stops: z.array(z.object({ name: z.string(), nights: z.number().default(1) })).optional(),
    traveller: z.object({ name: z.string() }).nullable().optional(),
    mode: z.union([z.literal("any"), z.object({ kind: z.string(), maxPrice: z.number() })]),
    extras: z.looseObject({ note: z.string().optional() }).optional(),
    tags: z.record(z.string(), z.string()).optional(),
  }),
  execute: () => "planned",
});

describe("unknown argument keys of a zod tool", () => {
  it("answers current_time with time_zone as invalid_args naming the key meant, without running it", async () => {
    let ran = false;
    const time = currentTimeTool(() => {
      ran = true;
      return new Date(0);
    });
    const run = await runTool(time, { time_zone: "UTC" }, call, context, { timeoutMs: 1_000 });
    expect(run).toEqual({
      outcome: "invalid_args",
      output:
        'Invalid arguments for current_time: unknown argument "time_zone" (did you mean "timeZone"?); current_time takes: timeZone. Fix them and call it again.',
    });
    expect(ran).toBe(false);
    expect(
      (await runTool(time, { timeZone: "UTC" }, call, context, { timeoutMs: 1_000 })).outcome,
    ).toBe("ok");
  });

  it("finds unknown keys at every level: nested objects, list items, nullable and union members", () => {
    const problem = problemOf(trip, {
      location: { city: "Lyon", zip_code: "69001" },
      stops: [{ name: "Paris" }, { name: "Dijon", nigths: 2 }],
      traveller: { name: "Ada", age: 36 },
      mode: { kind: "train", max_price: 80 },
    });
    expect(problem).toBe(
      [
        'Invalid arguments for plan_trip: location: unknown key "zip_code" (did you mean "zipCode"?); location takes: city, zipCode',
        'stops[1]: unknown key "nigths" (did you mean "nights"?); stops[1] takes: name, nights',
        'traveller: unknown key "age"; traveller takes: name',
        'mode: unknown key "max_price" (did you mean "maxPrice"?); mode takes: kind, maxPrice',
        "mode: Invalid input. Fix them and call it again.",
      ].join("; "),
    );
  });

  it("keeps accepting extra keys where the schema allows them (loose objects, records)", () => {
    const checked = checkArguments(trip, {
      location: { city: "Lyon" },
      mode: "any",
      extras: { note: "window seat", anything: true },
      tags: { free: "form", keys: "here" },
    });
    expect(checked).toEqual({
      ok: true,
      args: {
        location: { city: "Lyon" },
        mode: "any",
        extras: { note: "window seat", anything: true },
        tags: { free: "form", keys: "here" },
      },
    });
  });

  it("says a tool takes no arguments when it takes none", () => {
    const none = defineTool({
      id: "ping",
      description: "Pings.",
      parameters: z.object({}),
      execute: () => "pong",
    });
    expect(problemOf(none, { verbose: true })).toBe(
      'Invalid arguments for ping: unknown argument "verbose"; ping takes no arguments. Fix them and call it again.',
    );
    expect(checkArguments(none, {})).toEqual({ ok: true, args: {} });
  });
});

describe("unknown argument keys of a JSON Schema (MCP) tool", () => {
  const mcp = (inputSchema: JsonSchema) =>
    defineJsonSchemaTool({
      id: "mcp__github__create_issue",
      family: "mcp:github",
      description: "Create an issue.",
      inputSchema,
      execute: () => "created",
    });
  const closed = mcp({
    type: "object",
    properties: { owner: { type: "string" }, repo: { type: "string" }, title: { type: "string" } },
    required: ["owner", "repo", "title"],
    additionalProperties: false,
  });

  it("refuses keys where the schema says additionalProperties: false", () => {
    expect(problemOf(closed, { owner: "o", repository: "r", title: "t" })).toBe(
      'Invalid arguments for mcp__github__create_issue: unknown argument "repository" (did you mean "repo"?); mcp__github__create_issue takes: owner, repo, title. Fix them and call it again.',
    );
  });

  it("passes extra keys through where the schema allows them, as the server expects", async () => {
    let seen: unknown;
    const open = defineJsonSchemaTool({
      id: "mcp__search__query",
      family: "mcp:search",
      description: "Search.",
      inputSchema: {
        type: "object",
        properties: {
          q: { type: "string" },
          filter: {
            type: "object",
            properties: { lang: { type: "string" } },
            additionalProperties: false,
          },
        },
      },
      execute: (args) => {
        seen = args;
        return "ok";
      },
    });
    const run = await runTool(open, { q: "x", page: 2 }, call, context, { timeoutMs: 1_000 });
    expect(run.outcome).toBe("ok");
    expect(seen).toEqual({ q: "x", page: 2 });
    expect(problemOf(open, { q: "x", filter: { language: "en" } })).toMatch(
      /filter: unknown key "language" \(did you mean "lang"\?\); filter takes: lang/,
    );
  });

  it("follows $ref, allOf and anyOf as MCP servers write them", () => {
    const tool = mcp({
      type: "object",
      $defs: {
        Label: {
          type: "object",
          properties: { name: { type: "string" } },
          additionalProperties: false,
        },
      },
      allOf: [{ properties: { owner: { type: "string" } } }],
      properties: {
        labels: { type: "array", items: { $ref: "#/$defs/Label" } },
        assignee: { anyOf: [{ type: "null" }, { $ref: "#/$defs/Label" }] },
      },
      unevaluatedProperties: false,
    });
    expect(checkArguments(tool, { owner: "o", labels: [{ name: "bug" }] }).ok).toBe(true);
    const problem = problemOf(tool, {
      labels: [{ name: "bug", colour: "red" }],
      assignee: { nme: "ada" },
      ownr: "x",
    });
    expect(problem).toContain('labels[0]: unknown key "colour"; labels[0] takes: name');
    expect(problem).toContain('assignee: unknown key "nme" (did you mean "name"?)');
    expect(problem).toContain('unknown argument "ownr" (did you mean "owner"?)');
  });

  it("does not loop on a schema that refers to itself", () => {
    const tool = mcp({ anyOf: [{ $ref: "#" }, { allOf: [{ $ref: "#" }, { $ref: "#" }] }] });
    expect(checkArguments(tool, { any: { thing: [1, 2] } }).ok).toBe(true);
  });
});

describe("every built-in tool's own documented calls", () => {
  const store = new MemoryStore({} as Redis, "sy", DEFAULT_MEMORY);
  const reminders = {
    schedule: {} as ReminderSchedule,
    now: () => 0,
    defaults: DEFAULT_REMINDERS,
  };
  const builtins: readonly AnyTool[] = [
    currentTimeTool(),
    defineSkillTool(() => ({ skills: [], problems: [] }) as never),
    webSearchTool(undefined, {}),
    fetchUrlTool(),
    rememberTool(store),
    recallTool(store),
    forgetTool(store),
    setReminderTool(reminders),
    listRemindersTool(reminders),
    cancelReminderTool(reminders),
    sendMessageTool({} as MessagingPorts),
    scheduleTaskTool({
      desk: () => ({}) as ScheduleDesk,
      zone: "UTC",
      policy: () => DEFAULT_COMMAND_POLICY,
    }),
  ];
  const documented: Record<string, readonly object[]> = {
    current_time: [{}, { timeZone: "Europe/Paris" }, { timeZone: "America/New_York" }],
    skill: [{ name: "meeting-notes" }],
    web_search: [{ query: "rust release date" }],
    fetch_url: [{ url: "https://example.com/page" }],
    remember: [
      { text: "Prefers answers in German." },
      { text: "Lives in Berlin", topic: "timezone" },
    ],
    recall: [{}, { query: "timezone" }],
    forget: [{ id: "m3" }, { all: true }],
    set_reminder: [
      { text: "Call Ada", at: "2026-12-01T09:00" },
      { text: "Call Ada", at: "2026-12-01T09:00+01:00" },
      { text: "Call Ada", at: "2026-12-01T09:00", time_zone: "Europe/Berlin" },
      { text: "Stand-up", in: "90m" },
      { text: "Stand-up", in: "2h30m" },
    ],
    list_reminders: [{}],
    cancel_reminder: [{ id: "r12" }],
    send_message: [{ to: "#general", text: "The build is green." }],
    schedule_task: [
      { when: "weekdays 09:00 Europe/Berlin", prompt: "Summarise yesterday's incidents." },
      { when: "every 2h", prompt: "Check the deploy queue." },
    ],
  };

  it.each(builtins.map((tool) => [tool.id, tool] as const))("%s accepts them", (id, tool) => {
    expect(documented[id], `no documented calls listed for ${id}`).toBeDefined();
    for (const args of documented[id] ?? [])
      expect(checkArguments(tool, args)).toMatchObject({ ok: true });
  });

  it("refuses a key no built-in tool declares, on every one of them, naming what it takes", () => {
    for (const tool of builtins) {
      const args = { ...(documented[tool.id]?.[0] ?? {}), unexpected_key: 1 };
      expect(problemOf(tool, args)).toContain(
        `unknown argument "unexpected_key"; ${tool.id} takes`,
      );
    }
  });

  it("never calls a key unknown when it is one the tool declares, whatever the values", () => {
    for (const tool of builtins) {
      const declared = Object.keys((tool.jsonSchema.properties as object | undefined) ?? {});
      fc.assert(
        fc.property(
          fc.dictionary(fc.constantFrom(...(declared.length ? declared : ["_"])), fc.jsonValue()),
          (args) => {
            const known = Object.fromEntries(
              Object.entries(args).filter(([k]) => declared.includes(k)),
            );
            expect(unknownKeys(tool.jsonSchema, known, tool.keyPolicy)).toEqual([]);
          },
        ),
        { numRuns: 100 },
      );
    }
  });
});

describe("the realistic MCP and built-in schemas", () => {
  const tools = realisticTools.map((spec) =>
    defineJsonSchemaTool({
      id: spec.id,
      description: spec.description,
      inputSchema: spec.parameters,
      ...(spec.id.startsWith("mcp__") ? { family: `mcp:${spec.id.split("__")[1]}` } : {}),
      execute: () => "ok",
    }),
  );

  it("accept any of their own keys and refuse one they do not list, with the one meant", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...tools),
        fc.nat(),
        fc.constantFrom("_", "s", "X"),
        (tool, pick, typo) => {
          const declared = Object.keys(tool.jsonSchema.properties as object);
          const args = Object.fromEntries(declared.map((key) => [key, "value"]));
          expect(unknownKeys(tool.jsonSchema, args, tool.keyPolicy)).toEqual([]);
          const meant = declared[pick % declared.length] as string;
          const wrong = `${meant}${typo}`;
          fc.pre(!declared.includes(wrong));
          const { [meant]: _dropped, ...rest } = args;
          const found = unknownKeys(tool.jsonSchema, { ...rest, [wrong]: "value" }, tool.keyPolicy);
          expect(found).toEqual([{ path: [], key: wrong, expected: declared, suggestion: meant }]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("arguments the model should never send", () => {
  const greet = defineTool({
    id: "greet",
    description: "Greets someone.",
    parameters: z.object({
      name: z.string(),
      options: z.record(z.string(), z.unknown()).optional(),
    }),
    execute: ({ name }) => `hello ${name}`,
  });

  it("refuses JSON nested 100,000 levels deep, with the limit", () => {
    const deep = `{"name":"a","options":{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}}`;
    expect(parseToolArguments("greet", deep)).toEqual({
      ok: false,
      problem: `The arguments for greet nest deeper than ${MAX_ARGUMENT_DEPTH} levels, the limit. Call it again with flatter arguments, as its parameters describe them.`,
    });
  });

  it("refuses 10 MB of arguments before parsing them, with the limit", () => {
    const huge = JSON.stringify({ name: "x".repeat(10 * 1024 * 1024) });
    const reading = parseToolArguments("greet", huge);
    expect(reading).toEqual({
      ok: false,
      problem: `The arguments for greet are ${huge.length} bytes of JSON; the limit is ${MAX_ARGUMENT_BYTES} bytes (1 MiB). Call it again with only the values it needs; send long content in smaller parts.`,
    });
  });

  it.each([
    ["an array", "[1,2]"],
    ["a string", '"greet Ada"'],
    ["a number", "42"],
    ["null", "null"],
    ["a boolean", "true"],
  ])("refuses JSON that is %s, asking for an object", (kind, text) => {
    expect(parseToolArguments("greet", text)).toEqual({
      ok: false,
      problem: `The arguments for greet must be a JSON object of named arguments, e.g. {"name": "value"}, not ${kind}. Call it again with an object.`,
    });
  });

  it("refuses text that is not JSON, quoting the start of it", () => {
    const reading = parseToolArguments("greet", `{name: Ada${"!".repeat(500)}`);
    expect(reading.ok).toBe(false);
    expect(!reading.ok && reading.problem).toBe(
      `The arguments for greet were not valid JSON ({name: Ada${"!".repeat(190)}…). Call it again with a JSON object of named arguments, e.g. {"name": "value"}.`,
    );
  });

  it("answers a deep value handed straight to the runner as invalid_args, not a stack overflow", async () => {
    const recursive = defineTool({
      id: "store_json",
      description: "Stores a JSON document.",
      parameters: z.object({ doc: z.json() }),
      execute: () => "stored",
    });
    const doc = JSON.parse(`${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`);
    const run = await runTool(recursive, { doc }, call, context, { timeoutMs: 1_000 });
    expect(run.outcome).toBe("invalid_args");
    expect(run.output).toMatch(/nest deeper than 64 levels/);
  });

  it("reads any text as arguments or a problem for the model, never a throw", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          const reading = parseToolArguments("greet", text);
          if (reading.ok) {
            expect(typeof reading.args).toBe("object");
            expect(Array.isArray(reading.args)).toBe(false);
          } else {
            expect(reading.problem).toMatch(/^The arguments for greet /);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("accepts exactly the JSON objects nested at most the limit deep", () => {
    const nested = fc.nat(MAX_ARGUMENT_DEPTH + 10).map((depth) => {
      let value: unknown = 1;
      for (let i = 1; i < depth; i++) value = i % 2 ? [value] : { k: value };
      return { value: { options: value }, depth: Math.max(depth, 1) };
    });
    fc.assert(
      fc.property(nested, ({ value, depth }) => {
        const reading = parseToolArguments("greet", JSON.stringify(value));
        expect(reading.ok).toBe(depth <= MAX_ARGUMENT_DEPTH);
      }),
    );
  });

  it("checks any value against any tool without throwing", () => {
    const tools = [trip, greet, currentTimeTool()];
    fc.assert(
      fc.property(
        fc.constantFrom(...tools),
        fc.anything({ withNullPrototype: true }),
        (tool, value) => {
          const checked = checkArguments(tool, value);
          if (!checked.ok)
            expect(checked.problem).toMatch(
              new RegExp(`^(Invalid arguments for|The arguments for) ${tool.id}`),
            );
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("the key meant", () => {
  it("is the same name written another way, else the nearest within a third of its length", () => {
    expect(closest("time_zone", ["timeZone"])).toBe("timeZone");
    expect(closest("TIMEZONE", ["zone", "timeZone"])).toBe("timeZone");
    expect(closest("qurey", ["query", "limit"])).toBe("query");
    expect(closest("colour", ["name"])).toBeUndefined();
    expect(closest("x", [])).toBeUndefined();
  });

  it("is always one of the candidates", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string()), (key, candidates) => {
        const meant = closest(key, candidates);
        if (meant !== undefined) expect(candidates).toContain(meant);
      }),
    );
  });
});
