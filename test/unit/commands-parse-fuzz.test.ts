import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isWellFormedKey } from "../../src/core/availability/keys.ts";
import { CHAT_SCOPES } from "../../src/core/availability/scopes.ts";
import {
  type Actor,
  CommandError,
  type CommandPolicy,
  checkPermission,
  formatToolsCommand,
  type PlanContext,
  parseToolsCommand,
  planToolsText,
  TOOLS_VERBS,
  type ToolsCommand,
} from "../../src/core/commands/index.ts";
import { LOAD_MODES } from "../../src/core/loading/modes.ts";
import { defineToolsets } from "../../src/core/tools/toolsets.ts";
import { freeze, mcpTool, registryOf, tool } from "../support/tools.ts";

/** Words from the grammar, near-misses of them, and junk, so random sentences sometimes parse. */
const WORDS = [
  ...TOOLS_VERBS,
  ...CHAT_SCOPES,
  ...LOAD_MODES,
  "pi",
  "omp",
  "follow",
  "none",
  "all",
  "ALL",
  "mcp",
  "mcp:github",
  "mcp:",
  "web_search",
  "web_search,code_run",
  "mcp__github__create_issue",
  "research",
  "runtime",
  "chanel",
  "lst",
  "of",
  "enable",
  "`web_search`",
  '"',
  ",",
  ",,",
  "__proto__",
  "constructor",
  "toString",
  "/tools",
  "!tools",
  "/tools@Bot",
  "@",
  "é",
  "🙂",
];

const SPACE = fc.constantFrom(" ", "  ", "\t", "\n", "\u00a0", "");

const sentenceArb = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), SPACE), { maxLength: 6 })
  .map((parts) => parts.map(([word, space]) => `${word}${space || " "}`).join(""));

const anyInput = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  sentenceArb,
  sentenceArb.map((s) => s.toUpperCase()),
  sentenceArb.map((s) => `/tools ${s}`),
);

function outcome(text: string): ToolsCommand | CommandError {
  try {
    return parseToolsCommand(text);
  } catch (error) {
    if (error instanceof CommandError) return error;
    throw new Error(`${JSON.stringify(text)} threw ${String(error)}, not a CommandError`);
  }
}

/** Random ids, and ids spelled like the grammar's own words, which the formatter must keep apart. */
const idArb = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/),
  fc.constantFrom("channel", "Global", "conversation", "list", "on", "follow", "pi"),
);
const keyArb = fc.oneof(
  idArb,
  fc.constantFrom("all", "mcp", "mcp:github", "mcp:GitHub", "plugin:notes"),
);
const scopeArb = fc.constantFrom(...CHAT_SCOPES);
const commandArb: fc.Arbitrary<ToolsCommand> = fc.oneof(
  fc.constant({ verb: "list" } as const),
  fc.record({ verb: fc.constant("help" as const), topic: fc.constantFrom(null, ...TOOLS_VERBS) }),
  fc.record({ verb: fc.constantFrom("on" as const, "off" as const), key: keyArb, scope: scopeArb }),
  fc.record({
    verb: fc.constant("reset" as const),
    key: fc.option(keyArb.filter((k) => k !== "all")),
    scope: scopeArb,
  }),
  fc.record({ verb: fc.constant("why" as const), id: idArb }),
  fc.record({
    verb: fc.constant("mode" as const),
    mode: fc.constantFrom(null, ...LOAD_MODES),
    scope: scopeArb,
  }),
  fc.record({
    verb: fc.constant("preset" as const),
    toolset: fc.option(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,10}$/)),
    scope: scopeArb,
  }),
  fc.record({
    verb: fc.constant("pick" as const),
    ids: fc.uniqueArray(
      idArb.filter((id) => id.toLowerCase() !== "none"),
      { maxLength: 4 },
    ),
  }),
);

describe("parseToolsCommand, fuzzed", () => {
  it("either parses or throws a CommandError, never anything else", () => {
    fc.assert(
      fc.property(anyInput, (text) => void outcome(text)),
      { numRuns: 3000 },
    );
  });

  it("only ever returns well-formed commands", () => {
    fc.assert(
      fc.property(anyInput, (text) => {
        const result = outcome(text);
        if (result instanceof CommandError) {
          expect(result.message.length).toBeGreaterThan(0);
          const { token, message } = result;
          if (token !== null) {
            expect(message.includes(token) || message.includes(JSON.stringify(token))).toBe(true);
          }
          return;
        }
        expect(TOOLS_VERBS).toContain(result.verb);
        if ("scope" in result) expect(CHAT_SCOPES).toContain(result.scope);
        if ("key" in result && result.key !== null) expect(isWellFormedKey(result.key)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads back every command it formats", () => {
    fc.assert(
      fc.property(commandArb, (command) => {
        expect(parseToolsCommand(formatToolsCommand(command))).toEqual(command);
      }),
    );
  });

  it("never defaults a scope it cannot read", () => {
    const notScope = fc
      .stringMatching(/^[A-Za-z]{1,12}$/)
      .filter((word) => !(CHAT_SCOPES as readonly string[]).includes(word.toLowerCase()));
    fc.assert(
      fc.property(fc.constantFrom("on", "off", "reset"), notScope, (verb, word) => {
        const result = outcome(`${verb} web_search ${word}`);
        expect(result).toBeInstanceOf(CommandError);
        expect((result as CommandError).token).toBe(word);
      }),
    );
  });
});

describe("planToolsText, fuzzed", () => {
  const registry = registryOf(
    tool("web_search"),
    tool("code_run", { defer: true }),
    mcpTool("github", "create_issue"),
  );
  const toolsets = defineToolsets({ research: { tools: ["web_search"], includes: [] } });
  const contract = freeze(registry, { toolsets });
  const policy: CommandPolicy = { owners: ["O"], admins: ["A"], conversation: "anyone" };
  const actorArb: fc.Arbitrary<Actor> = fc.record({
    id: fc.constantFrom("O", "A", "M"),
    isPlatformAdmin: fc.boolean(),
  });

  it("answers any input with a plan, and changes only what the actor may change", () => {
    fc.assert(
      fc.property(anyInput, actorArb, (text, actor) => {
        const ctx: PlanContext = { actor, policy, registry, toolsets, contract };
        const plan = planToolsText(text, ctx);
        if (plan.kind === "change") {
          expect(checkPermission(actor, plan.scope, policy).allowed).toBe(true);
          expect(plan.reply).toContain("This applies from the next message");
        }
      }),
      { numRuns: 2000 },
    );
  });
});
