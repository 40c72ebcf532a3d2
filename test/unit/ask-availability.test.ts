import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import {
  EMPTY_INTENT,
  type Intent,
  readIntent,
  setKey,
  writeIntent,
} from "../../src/core/availability/intent.ts";
import { ASK, type KeyValue } from "../../src/core/availability/keys.ts";
import {
  describeState,
  explain,
  resolveAvailability,
  type ToolState,
} from "../../src/core/availability/resolve.ts";
import type { ScopeLayer, ScopeStack } from "../../src/core/availability/scopes.ts";
import { freezeTurn } from "../../src/core/loading/freeze.ts";
import { WarnOnce } from "../../src/core/logger.ts";
import { ToolDefinitionError } from "../../src/core/tools/errors.ts";
import { type AnyTool, defineTool } from "../../src/core/tools/tool.ts";
import { mcpTool, registryOf, tool } from "../support/tools.ts";

/** A tool that asks first by its own default, as send_message does. */
function askingTool(id: string, family?: string): AnyTool {
  return defineTool({
    id,
    description: `Does ${id}.`,
    parameters: z.object({ to: z.string() }),
    approval: "ask",
    execute: () => "done",
    ...(family !== undefined ? { family } : {}),
  });
}

const sendMessage = askingTool("send_message");
const deleteRepo = askingTool("mcp__github__delete_repo", "mcp:github");
const registry = registryOf(
  tool("web_search", { capability: "search_provider" }),
  tool("fetch_url"),
  sendMessage,
  mcpTool("github", "create_issue"),
  deleteRepo,
);
const capabilities: Capabilities = {
  search_provider: { available: false, reason: "no search provider is configured" },
  "mcp:github": { available: true },
};

function stateOf(id: string, scopes: ScopeStack = {}, intent: Intent = EMPTY_INTENT): ToolState {
  const resolution = resolveAvailability(registry, scopes, intent, capabilities, {
    warnings: new WarnOnce(),
    toolsets: { default: { tools: ["*"], includes: [] }, full: { tools: ["*"], includes: [] } },
  });
  return resolution.states.get(id) as ToolState;
}

const layer = (keys: Record<string, KeyValue>): ScopeLayer => ({ keys });

describe("ask in the scope stack", () => {
  it.each([
    ["global", { global: layer({ fetch_url: ASK }) }],
    ["workspace", { workspace: layer({ fetch_url: ASK }) }],
    ["channel", { channel: layer({ fetch_url: ASK }) }],
    ["runtime", { runtime: layer({ fetch_url: ASK }) }],
  ] as const)("ask at the %s scope keeps the tool on and says who decided it", (scope, scopes) => {
    const state = stateOf("fetch_url", scopes);
    expect(state).toMatchObject({ status: "enabled", standing: true });
    expect(state.status === "enabled" && state.ask).toEqual({
      kind: "scope",
      scope,
      key: "fetch_url",
    });
  });

  it("ask in the conversation's intent decides like any other conversation decision", () => {
    const state = stateOf("fetch_url", {}, setKey(EMPTY_INTENT, "fetch_url", ASK));
    expect(state.status === "enabled" && state.ask).toEqual({
      kind: "scope",
      scope: "conversation",
      key: "fetch_url",
    });
    const master = stateOf("fetch_url", {}, setKey(EMPTY_INTENT, "all", ASK));
    expect(master.status === "enabled" && master.ask).toMatchObject({ key: "all" });
  });

  it("the deepest scope wins per key: ask over on, on over ask, off over ask", () => {
    const askDeep = stateOf("fetch_url", {
      global: layer({ fetch_url: true }),
      channel: layer({ fetch_url: ASK }),
    });
    expect(askDeep.status === "enabled" && askDeep.ask).toMatchObject({ scope: "channel" });
    const onDeep = stateOf("fetch_url", {
      global: layer({ fetch_url: ASK }),
      channel: layer({ fetch_url: true }),
    });
    expect(onDeep).toMatchObject({ status: "enabled" });
    expect(onDeep.status === "enabled" && onDeep.ask).toBeUndefined();
    const offDeep = stateOf("fetch_url", {
      global: layer({ fetch_url: ASK }),
      runtime: layer({ fetch_url: false }),
    });
    expect(offDeep).toMatchObject({ status: "disabled", by: { scope: "runtime" } });
  });

  it("a family or the aggregate mcp key set to ask makes each of its tools ask", () => {
    const byFamily = stateOf("mcp__github__create_issue", {
      workspace: layer({ "mcp:github": ASK }),
    });
    expect(byFamily.status === "enabled" && byFamily.ask).toMatchObject({ key: "mcp:github" });
    const byMcp = stateOf("mcp__github__create_issue", { global: layer({ mcp: ASK }) });
    expect(byMcp.status === "enabled" && byMcp.ask).toMatchObject({ key: "mcp" });
  });

  it("ask cannot revive an absent tool: the capability floor comes first", () => {
    for (const scopes of [
      { runtime: layer({ web_search: ASK }) },
      { global: layer({ all: ASK }) },
    ] as ScopeStack[]) {
      expect(stateOf("web_search", scopes)).toMatchObject({
        status: "absent",
        reason: "no search provider is configured",
      });
    }
  });
});

describe("a tool's own approval: ask", () => {
  it("asks first when nothing mentions it, or when only the selection turns it on", () => {
    const state = stateOf("send_message");
    expect(state).toMatchObject({ status: "enabled", ask: { kind: "tool" } });
    expect(describeState(state)).toBe(
      "on, decided by toolset default; asks first: the tool's own default (approval: ask), which /tools on send_message lifts",
    );
  });

  it("keeps asking under an on from all or the aggregate mcp key", () => {
    const all = stateOf("send_message", { global: layer({ all: true }) });
    expect(all).toMatchObject({ status: "enabled", ask: { kind: "tool" } });
    const mcp = stateOf("mcp__github__delete_repo", {}, setKey(EMPTY_INTENT, "mcp", "on"));
    expect(mcp).toMatchObject({ status: "enabled", ask: { kind: "tool" } });
    const conversationAll = stateOf("send_message", {}, setKey(EMPTY_INTENT, "all", "on"));
    expect(conversationAll).toMatchObject({ ask: { kind: "tool" } });
  });

  it("is lifted by a person's explicit on for the tool's id or its family", () => {
    const byId = stateOf("send_message", { channel: layer({ send_message: true }) });
    expect(byId).toMatchObject({ status: "enabled" });
    expect(byId.status === "enabled" && byId.ask).toBeUndefined();
    const byFamily = stateOf("mcp__github__delete_repo", { global: layer({ "mcp:github": true }) });
    expect(byFamily.status === "enabled" && byFamily.ask).toBeUndefined();
  });

  it("an explicit ask for it is the scope's, and off still switches it off", () => {
    const ask = stateOf("send_message", { runtime: layer({ send_message: ASK }) });
    expect(ask).toMatchObject({ ask: { kind: "scope", scope: "runtime" } });
    expect(stateOf("send_message", { global: layer({ all: false }) }).status).toBe("disabled");
  });

  it("why names what decided ask, with the mention as written", () => {
    const resolution = resolveAvailability(
      registry,
      { channel: layer({ fetch_url: ASK }), global: layer({ fetch_url: true }) },
      EMPTY_INTENT,
      capabilities,
      { warnings: new WarnOnce() },
    );
    const why = explain(resolution, registry, "fetch_url");
    expect(why.summary).toBe(
      "fetch_url: ask (on, each call waits for a person's approval), decided by channel scope (fetch_url)",
    );
    expect(why.chain).toEqual([
      { scope: "channel", key: "fetch_url", value: ASK },
      { scope: "global", key: "fetch_url", value: true },
    ]);
  });

  it("refuses an approval value that is not ask or on, naming the fix", () => {
    expect(() =>
      defineTool({
        id: "wipe",
        description: "Wipes.",
        parameters: z.object({}),
        approval: "always" as "ask",
        execute: () => "",
      }),
    ).toThrow(ToolDefinitionError);
  });

  it("never changes the tool's wire bytes", () => {
    const plain = defineTool({
      id: "send_message",
      description: `Does send_message.`,
      parameters: z.object({ to: z.string() }),
      execute: () => "done",
    });
    expect(sendMessage.wire).toBe(plain.wire);
    expect(sendMessage.digest).toBe(plain.digest);
  });
});

describe("stored intent with ask", () => {
  it("writes ask and reads it back, and reads intents stored before ask as they were", () => {
    const intent = setKey(setKey(EMPTY_INTENT, "send_message", ASK), "all", ASK);
    const stored = JSON.parse(JSON.stringify(writeIntent(intent)));
    expect(stored).toEqual({ v: 1, master: "ask", decisions: { send_message: "ask" } });
    expect(readIntent(stored)).toEqual({ intent, problems: [] });
    const old = { v: 1, master: "off", decisions: { web_search: false, "mcp:github": true } };
    expect(readIntent(old).intent.decisions).toEqual({ web_search: false, "mcp:github": true });
    expect(readIntent({ v: 1, decisions: { a: "maybe" } }).problems).toHaveLength(1);
  });
});

const SCOPE_NAMES = ["global", "workspace", "channel", "conversation", "runtime"] as const;
const KEYS = [
  "fetch_url",
  "send_message",
  "web_search",
  "mcp__github__create_issue",
  "mcp__github__delete_repo",
  "mcp:github",
  "mcp",
  "all",
] as const;

/** Scope stacks of arbitrary on/off/ask decisions, and a conversation intent. */
const decisions = fc.array(
  fc.record({
    scope: fc.constantFrom(...SCOPE_NAMES),
    key: fc.constantFrom(...KEYS),
    value: fc.constantFrom<KeyValue>(true, false, ASK),
  }),
  { maxLength: 12 },
);

function build(entries: readonly { scope: string; key: string; value: KeyValue }[]) {
  const scopes: Record<string, { keys: Record<string, KeyValue> }> = {};
  let intent = EMPTY_INTENT;
  for (const { scope, key, value } of entries) {
    if (scope === "conversation") {
      intent = setKey(intent, key, value === ASK ? ASK : value ? "on" : "off");
    } else {
      scopes[scope] ??= { keys: {} };
      (scopes[scope] as { keys: Record<string, KeyValue> }).keys[key] = value;
    }
  }
  return { scopes: scopes as ScopeStack, intent };
}

describe("rule 2: ask is invisible to the model", () => {
  it("property: switching any key between on and ask at any scope keeps the tools bytes, catalog and hash, while asking changes", () => {
    fc.assert(
      fc.property(
        decisions,
        fc.constantFrom(...SCOPE_NAMES),
        fc.constantFrom(...KEYS),
        fc.constantFrom("full", "default", "minimal", "discover" as const),
        (entries, scope, key, mode) => {
          const on = build([...entries, { scope, key, value: true }]);
          const ask = build([...entries, { scope, key, value: ASK }]);
          const freeze = ({ scopes, intent }: ReturnType<typeof build>) =>
            freezeTurn(
              registry,
              { ...scopes, runtime: { ...scopes.runtime, mode } },
              intent,
              capabilities,
              {
                warnings: new WarnOnce(),
              },
            );
          const a = freeze(on);
          const b = freeze(ask);
          expect(b.tools).toBe(a.tools);
          expect(b.catalog).toBe(a.catalog);
          expect(b.hash).toBe(a.hash);
          expect([...b.callable]).toEqual([...a.callable]);
          // Whatever ask reached and the floor left on now asks.
          for (const id of b.asking) expect(b.resolution.states.get(id)?.status).toBe("enabled");
          expect(b.asking.size).toBeGreaterThanOrEqual(a.asking.size);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a tool switched on -> ask -> on asks only in the middle turn, under one hash", () => {
    const turn = (value: KeyValue) =>
      freezeTurn(registry, { channel: layer({ fetch_url: value }) }, EMPTY_INTENT, capabilities);
    const [first, middle, last] = [turn(true), turn(ASK), turn(true)];
    expect(first.asking.has("fetch_url")).toBe(false);
    expect(middle.asking.has("fetch_url")).toBe(true);
    expect(last.asking.has("fetch_url")).toBe(false);
    expect(new Set([first.hash, middle.hash, last.hash]).size).toBe(1);
  });
});
