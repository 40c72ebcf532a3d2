import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AGENT_BINDING_SCOPES,
  type AgentBinding,
  type AgentBindingScope,
  type AgentDefinition,
  agentLayer,
  type ChatBindings,
  DEFAULT_AGENT,
  IMPLICIT_DEFAULT,
  parseAgentCommand,
  resolveAgent,
} from "../../src/core/agents/index.ts";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import { EMPTY_INTENT, type Intent, setKey } from "../../src/core/availability/intent.ts";
import { type KeyValue, keysOf } from "../../src/core/availability/keys.ts";
import {
  conversationLayer,
  explain,
  resolveAvailability,
} from "../../src/core/availability/resolve.ts";
import type { ScopeLayer } from "../../src/core/availability/scopes.ts";
import { whyView } from "../../src/core/commands/view.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { freezeTurn } from "../../src/core/loading/freeze.ts";
import { WarnOnce } from "../../src/core/logger.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { expandToolset, type Toolsets } from "../../src/core/tools/toolsets.ts";
import {
  capabilitiesArb,
  keyArb,
  layerArb,
  toolsArb,
  toolsetsArb,
} from "../support/arbitraries.ts";
import { registryOf, tool } from "../support/tools.ts";

const IDS = ["support", "engineering", "ops"] as const;
/** Ids a binding may name: the config's, the implicit default, and one the config no longer has. */
const NAMED = [...IDS, DEFAULT_AGENT, "retired"] as const;

const where = (account?: string): ConversationAddress => ({
  platform: "slack",
  ...(account !== undefined ? { account } : {}),
  workspace: "T1",
  channel: "C1",
  conversation: "C1:1700.1",
});

/** The place a config binding must name to match {@link where}, or another place. */
const TARGETS: Record<Exclude<AgentBindingScope, "conversation">, readonly string[]> = {
  account: ["slack:A1", "slack:A2"],
  workspace: ["slack:T1", "slack:T2", "discord:T1"],
  channel: ["slack:C1", "slack:C9"],
};

const agentArb = (id: string): fc.Arbitrary<AgentDefinition> =>
  layerArb.map((layer) => ({
    id,
    name: id,
    tools: layer.keys ?? {},
    skills: {},
    ...(layer.toolset !== undefined ? { toolset: layer.toolset } : {}),
    ...(layer.mode !== undefined ? { mode: layer.mode } : {}),
  }));

const bindingArb: fc.Arbitrary<AgentBinding> = fc
  .constantFrom("account", "workspace", "channel")
  .chain((scope) =>
    fc.record({
      agent: fc.constantFrom(...NAMED),
      scope: fc.constant(scope),
      target: fc.constantFrom(...TARGETS[scope]),
    }),
  );

const chatArb: fc.Arbitrary<ChatBindings> = fc.record(
  {
    workspace: fc.constantFrom(...NAMED),
    channel: fc.constantFrom(...NAMED),
    conversation: fc.constantFrom(...NAMED),
  },
  { requiredKeys: [] },
);

const worldArb = fc.record({
  agents: fc.tuple(...IDS.map(agentArb)),
  config: fc.array(bindingArb, { maxLength: 6 }),
  chat: chatArb,
  account: fc.option(fc.constantFrom("A1", "A2"), { nil: undefined }),
  tools: toolsArb,
  toolsets: toolsetsArb,
  capabilities: capabilitiesArb,
  global: layerArb,
  workspace: fc.option(layerArb, { nil: undefined }),
  channel: fc.option(layerArb, { nil: undefined }),
  decisions: fc.array(
    fc.tuple(keyArb, fc.constantFrom("on", "off", "ask") as fc.Arbitrary<"on" | "off" | "ask">),
    {
      maxLength: 4,
    },
  ),
});

/** The table, read the slow way: the deepest scope whose binding (chat first) names a known agent. */
function expectedAgent(
  agents: ReadonlyMap<string, AgentDefinition>,
  address: ConversationAddress,
  config: readonly AgentBinding[],
  chat: ChatBindings,
): string {
  const own: Record<AgentBindingScope, string | undefined> = {
    account: address.account === undefined ? undefined : `slack:${address.account}`,
    workspace: "slack:T1",
    channel: "slack:C1",
    conversation: undefined,
  };
  for (const scope of ["conversation", "channel", "workspace", "account"] as const) {
    const named = [
      ...(scope === "account" ? [] : [chat[scope]]),
      ...config.filter((b) => b.scope === scope && b.target === own[scope]).map((b) => b.agent),
    ];
    const known = named.find((id) => id !== undefined && (agents.has(id) || id === DEFAULT_AGENT));
    if (known !== undefined) return known;
  }
  return DEFAULT_AGENT;
}

/** Per tool, the deepest layer that mentions one of its keys (most specific key within a layer), else the toolset. */
function expectedEnabled(
  registry: ToolRegistry,
  layers: readonly ScopeLayer[],
  toolsets: Toolsets,
  capabilities: Capabilities,
): Map<string, KeyValue | "absent"> {
  const named = layers.find((l) => l.toolset !== undefined)?.toolset ?? "default";
  const toolset = Object.hasOwn(toolsets, named) ? named : "default";
  const selected = expandToolset(toolsets, toolset, registry.list()).ids;
  const out = new Map<string, KeyValue | "absent">();
  for (const t of registry.list()) {
    if (t.capability !== undefined && capabilities[t.capability]?.available !== true) {
      out.set(t.id, "absent");
      continue;
    }
    let value: KeyValue | undefined;
    for (const layer of layers) {
      const key = keysOf(t).find((k) => layer.keys && Object.hasOwn(layer.keys, k));
      if (key !== undefined) {
        value = layer.keys?.[key];
        break;
      }
    }
    out.set(t.id, value ?? selected.has(t.id));
  }
  return out;
}

describe("which agent answers", () => {
  it("is the one the deepest-wins table names, and the resolved tools are the table's with its intent right above global", () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const agents = new Map<string, AgentDefinition>([
          [DEFAULT_AGENT, IMPLICIT_DEFAULT],
          ...w.agents.map((a) => [a.id, a] as const),
        ]);
        const address = where(w.account);
        const choice = resolveAgent(agents, address, w.config, w.chat);
        expect(choice.agent.id).toBe(expectedAgent(agents, address, w.config, w.chat));

        const intent = w.decisions.reduce<Intent>((i, [k, v]) => setKey(i, k, v), EMPTY_INTENT);
        const registry = new ToolRegistry(w.tools);
        const base = agentLayer(choice.agent);
        const resolution = resolveAvailability(
          registry,
          {
            global: w.global,
            ...(base ? { agent: base } : {}),
            ...(w.workspace ? { workspace: w.workspace } : {}),
            ...(w.channel ? { channel: w.channel } : {}),
          },
          intent,
          w.capabilities,
          { toolsets: w.toolsets, warnings: new WarnOnce(), agent: choice.agent.id },
        );
        const deepestFirst = [
          conversationLayer(intent),
          ...(w.channel ? [w.channel] : []),
          ...(w.workspace ? [w.workspace] : []),
          ...(base ? [base] : []),
          w.global,
        ];
        const expected = expectedEnabled(registry, deepestFirst, w.toolsets, w.capabilities);
        for (const [id, want] of expected) {
          const state = resolution.states.get(id);
          const got =
            state?.status === "absent"
              ? "absent"
              : state?.status === "enabled"
                ? state.ask?.kind === "scope"
                  ? "ask"
                  : true
                : false;
          expect([id, got]).toEqual([id, want]);
          // The agent's layer is named as the agent when it decided.
          if (
            state &&
            state.status !== "absent" &&
            state.by.kind === "scope" &&
            state.by.scope === "agent"
          ) {
            expect(state.by.agent).toBe(choice.agent.id);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("skips a binding to an agent the config no longer has, and says so", () => {
    const support: AgentDefinition = { ...IMPLICIT_DEFAULT, id: "support", name: "Support" };
    const agents = new Map([
      [DEFAULT_AGENT, IMPLICIT_DEFAULT],
      ["support", support],
    ]);
    const choice = resolveAgent(
      agents,
      where(),
      [{ agent: "support", scope: "workspace", target: "slack:T1" }],
      { channel: "retired" },
    );
    expect(choice.agent.id).toBe("support");
    expect(choice.by).toEqual({ kind: "binding", scope: "workspace", from: "config" });
    expect(choice.skipped).toEqual([{ scope: "channel", agent: "retired" }]);
  });

  it("binds an account only where the message came in on that account", () => {
    const agents = new Map([
      [DEFAULT_AGENT, IMPLICIT_DEFAULT],
      ["ops", { ...IMPLICIT_DEFAULT, id: "ops", name: "ops" }],
    ]);
    const bindings: AgentBinding[] = [{ agent: "ops", scope: "account", target: "slack:A1" }];
    expect(resolveAgent(agents, where("A1"), bindings, {}).agent.id).toBe("ops");
    expect(resolveAgent(agents, where(), bindings, {}).agent.id).toBe(DEFAULT_AGENT);
    expect(AGENT_BINDING_SCOPES).toEqual(["account", "workspace", "channel", "conversation"]);
  });
});

describe("an agent's base intent", () => {
  it("freezes to the same bytes for two agents with the same intent over the same registry", () => {
    fc.assert(
      fc.property(
        toolsArb,
        layerArb,
        capabilitiesArb,
        toolsetsArb,
        (tools, layer, caps, toolsets) => {
          const registry = new ToolRegistry(tools);
          const freeze = (id: string) => {
            const agent: AgentDefinition = {
              id,
              name: id,
              tools: layer.keys ?? {},
              skills: {},
              ...(layer.toolset !== undefined ? { toolset: layer.toolset } : {}),
              ...(layer.mode !== undefined ? { mode: layer.mode } : {}),
            };
            const base = agentLayer(agent);
            return freezeTurn(registry, { ...(base ? { agent: base } : {}) }, EMPTY_INTENT, caps, {
              toolsets,
              warnings: new WarnOnce(),
              agent: id,
            });
          };
          const [a, b] = [freeze("support"), freeze("engineering")];
          expect([a.tools, a.catalog, a.hash]).toEqual([b.tools, b.catalog, b.hash]);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("is named by /tools why when it decided, and absent from it for the default agent", () => {
    const registry = registryOf(tool("web_search"), tool("current_time"));
    const agent: AgentDefinition = {
      ...IMPLICIT_DEFAULT,
      id: "support",
      name: "Support",
      webSearch: "off",
    };
    const base = agentLayer(agent);
    const resolution = resolveAvailability(
      registry,
      { global: { keys: { web_search: true } }, ...(base ? { agent: base } : {}) },
      EMPTY_INTENT,
      {},
      { warnings: new WarnOnce(), agent: "support" },
    );
    const why = explain(resolution, registry, "web_search");
    expect(why.summary).toBe("web_search: off, decided by agent support's (web_search)");
    const lines = whyView(why).lines;
    expect(lines.find((l) => l.decides)?.label).toBe("agent support");

    const plain = resolveAvailability(registry, { global: {} }, EMPTY_INTENT, {}, {});
    expect(whyView(explain(plain, registry, "web_search")).lines.map((l) => l.label)).not.toContain(
      "agent",
    );
    expect(agentLayer(IMPLICIT_DEFAULT)).toBeUndefined();
  });
});

describe("parseAgentCommand", () => {
  const known = ["default", "support", "engineering"];

  it("never throws; shows with nothing, binds a known id at a binding scope, else names the problem", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (args) => {
        const read = parseAgentCommand(args, known);
        const words = args.split(/\s+/).filter(Boolean);
        if (words.length === 0) expect(read.kind).toBe("show");
        if (read.kind === "bind") {
          expect(known).toContain(read.agent);
          expect(["workspace", "channel", "conversation"]).toContain(read.scope);
        }
        if (read.kind === "bad") expect(read.problem.length).toBeLessThan(300);
      }),
    );
  });

  it("reads the forms people type", () => {
    expect(parseAgentCommand("", known)).toEqual({ kind: "show" });
    expect(parseAgentCommand("Support", known)).toEqual({
      kind: "bind",
      agent: "support",
      scope: "conversation",
    });
    expect(parseAgentCommand("engineering channel", known)).toEqual({
      kind: "bind",
      agent: "engineering",
      scope: "channel",
    });
    expect(parseAgentCommand("reset workspace", known)).toEqual({
      kind: "reset",
      scope: "workspace",
    });
    expect(parseAgentCommand("suport", known)).toEqual({
      kind: "bad",
      problem:
        '"suport" is not an agent here. Did you mean support? Agents: default, engineering, support.',
    });
    expect(parseAgentCommand("support global", known).kind).toBe("bad");
  });
});
