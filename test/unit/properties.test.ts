import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tombstoneFor } from "../../src/core/agent/tombstone.ts";
import { capabilityStatus } from "../../src/core/availability/capabilities.ts";
import { type Intent, mount, setKey, setWebSearch } from "../../src/core/availability/intent.ts";
import { keysOf } from "../../src/core/availability/keys.ts";
import type { ScopeLayer, ScopeStack } from "../../src/core/availability/scopes.ts";
import { expandCatalogName } from "../../src/core/loading/catalog.ts";
import { runToolSearch } from "../../src/core/loading/discovery.ts";
import { TOOL_SEARCH_ID } from "../../src/core/loading/discovery-tool.ts";
import { appendLoaded, type TurnContract } from "../../src/core/loading/freeze.ts";
import { LOAD_MODES } from "../../src/core/loading/modes.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import type { AnyTool } from "../../src/core/tools/tool.ts";
import { BUILTIN_TOOLSETS } from "../../src/core/tools/toolsets.ts";
import {
  freezeWorld,
  POOL,
  POOL_IDS,
  permute,
  SCOPE_KEYS,
  slotChoiceArb,
  slotTool,
  type World,
  worldArb,
} from "../support/arbitraries.ts";
import { enabledIds, tool } from "../support/tools.ts";

/** The parts of a contract that go to the provider or decide what may run. */
const shipped = (c: TurnContract) => ({
  mode: c.mode,
  tools: c.tools,
  resident: c.resident,
  deferred: c.deferred,
  catalog: c.catalog,
  callable: [...c.callable],
  mounted: c.mounted,
  discovery: c.discovery,
  digests: c.digests,
  hash: c.hash,
  states: [...c.resolution.states.entries()],
});

const withoutSearch = (ids: readonly string[]) => ids.filter((id) => id !== TOOL_SEARCH_ID);

const withRuntime = (scopes: ScopeStack, runtime: ScopeLayer): ScopeStack => ({
  ...scopes,
  runtime,
});

describe("deterministic expansion", () => {
  it("freezes the same inputs to the same bytes, catalog and hash, every time", () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const registry = new ToolRegistry(world.tools);
        const first = freezeWorld(world, registry);
        const second = freezeWorld(world, registry);
        const fresh = freezeWorld(world);
        expect(shipped(second)).toEqual(shipped(first));
        expect(shipped(fresh)).toEqual(shipped(first));
      }),
    );
  });

  it("gives the same contract for any registration order", () => {
    fc.assert(
      fc.property(
        worldArb,
        fc.array(fc.integer(), { minLength: POOL.length, maxLength: POOL.length }),
        (world, order) => {
          const inOrder = freezeWorld(world);
          const shuffled = freezeWorld(world, new ToolRegistry(permute(world.tools, order)));
          expect(shipped(shuffled)).toEqual(shipped(inOrder));
        },
      ),
    );
  });

  it("ships well-formed bytes: a JSON array of the resident tools, no repeats, a sorted catalog", () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const contract = freezeWorld(world);
        const array = JSON.parse(contract.tools) as Array<{ function: { name: string } }>;
        expect(array.map((t) => t.function.name)).toEqual(contract.resident);
        expect(new Set(contract.resident).size).toBe(contract.resident.length);
        expect([...contract.deferred]).toEqual([...contract.deferred].sort());
        if (contract.catalog !== "") {
          // Every line expands back to its names: the catalog lists exactly the deferred tools, in order.
          const lines = contract.catalog.trimEnd().split("\n");
          expect(lines.flatMap(expandCatalogName)).toEqual(contract.deferred);
        }
        expect(contract.catalog === "" || contract.discovery).toBe(true);
      }),
    );
  });
});

describe("adding a tool to the registry", () => {
  const additionArb = fc.record({
    world: worldArb,
    slot: fc.nat({ max: POOL.length - 1 }),
    choice: slotChoiceArb,
  });

  it("changes nothing else when the new tool ends up disabled or absent, and only adds itself otherwise", () => {
    fc.assert(
      fc.property(additionArb, ({ world, slot, choice }) => {
        const added = slotTool(slot, choice);
        const others = world.tools.filter((t) => t.id !== added.id);
        const before = freezeWorld({ ...world, tools: others });
        const after = freezeWorld({ ...world, tools: [...others, added] });
        const state = after.resolution.states.get(added.id);

        for (const t of others) {
          expect(after.resolution.states.get(t.id)).toEqual(before.resolution.states.get(t.id));
        }
        if (state?.status !== "enabled") {
          expect(after.tools).toBe(before.tools);
          expect(after.catalog).toBe(before.catalog);
          expect(after.hash).toBe(before.hash);
          expect(after.resident).toEqual(before.resident);
          return;
        }
        const strip = (ids: readonly string[]) =>
          withoutSearch(ids).filter((id) => id !== added.id);
        expect(strip(after.resident)).toEqual(withoutSearch(before.resident));
        expect(after.deferred.filter((id) => id !== added.id)).toEqual(before.deferred);
        if (after.deferred.includes(added.id) && before.discovery) {
          // Deferring one more tool when discovery is already offered leaves the cached prefix alone.
          expect(after.tools).toBe(before.tools);
        }
      }),
    );
  });

  it("reaches an old intent that never named it, enabled on its next expansion", () => {
    const neutral = (layer: ScopeLayer | undefined): ScopeLayer | undefined => {
      if (!layer) return undefined;
      const keys = Object.fromEntries(
        Object.entries(layer.keys ?? {}).filter(([key, value]) => key !== "all" || value),
      );
      return { keys, ...(layer.mode ? { mode: layer.mode } : {}) };
    };
    fc.assert(
      fc.property(worldArb, fc.boolean(), (world, defer) => {
        const scopes: ScopeStack = Object.fromEntries(
          Object.entries(world.scopes).map(([name, layer]) => [name, neutral(layer)]),
        );
        // An old intent that follows the default toolset and never switched everything off.
        const intent: Intent = {
          ...world.intent,
          master: world.intent.master === "off" ? "follow" : world.intent.master,
          toolset: null,
          picked: null,
        };
        const old: World = { ...world, scopes, intent, toolsets: BUILTIN_TOOLSETS };
        const registry = new ToolRegistry(old.tools);
        freezeWorld(old, registry);
        registry.register(tool("brand_new_tool", { defer }));
        const next = freezeWorld(old, registry);

        expect(next.resolution.states.get("brand_new_tool")?.status).toBe("enabled");
        const reachable = [...next.resident, ...next.deferred];
        expect(reachable).toContain("brand_new_tool");
        if (next.deferred.includes("brand_new_tool") && next.discovery) {
          expect(next.catalog.split("\n")).toContain("brand_new_tool");
        }
      }),
    );
  });
});

describe("deepest wins, per key", () => {
  const pickArb = fc.record({
    world: worldArb.filter((w) => w.tools.length > 0),
    toolIndex: fc.nat(),
    keyIndex: fc.nat(),
    value: fc.boolean(),
  });
  const choose = (world: World, toolIndex: number, keyIndex: number) => {
    const target = world.tools[toolIndex % world.tools.length] as AnyTool;
    const keys = keysOf(target);
    const at = keyIndex % keys.length;
    return { target, key: keys[at] as string, moreSpecific: keys.slice(0, at), all: keys };
  };
  const expectDecided = (
    contract: TurnContract,
    world: World,
    target: AnyTool,
    scope: string,
    key: string,
    value: boolean,
  ) => {
    const state = contract.resolution.states.get(target.id);
    if (target.capability && !capabilityStatus(world.capabilities, target.capability).available) {
      expect(state?.status).toBe("absent");
      return;
    }
    expect(state).toMatchObject({
      status: value ? "enabled" : "disabled",
      by: { kind: "scope", scope, key },
    });
  };

  it("lets a key at the runtime layer decide whatever the shallower layers say", () => {
    fc.assert(
      fc.property(pickArb, ({ world, toolIndex, keyIndex, value }) => {
        const { target, key, moreSpecific } = choose(world, toolIndex, keyIndex);
        const runtimeKeys = Object.fromEntries(
          Object.entries(world.scopes.runtime?.keys ?? {}).filter(
            ([k]) => !moreSpecific.includes(k),
          ),
        );
        const scopes = withRuntime(world.scopes, {
          ...world.scopes.runtime,
          keys: { ...runtimeKeys, [key]: value },
        });
        expectDecided(freezeWorld({ ...world, scopes }), world, target, "runtime", key, value);
      }),
    );
  });

  it("lets a key at the conversation decide when the runtime layer does not mention the tool", () => {
    fc.assert(
      fc.property(pickArb, ({ world, toolIndex, keyIndex, value }) => {
        const { target, key, moreSpecific, all } = choose(world, toolIndex, keyIndex);
        const runtimeKeys = Object.fromEntries(
          Object.entries(world.scopes.runtime?.keys ?? {}).filter(([k]) => !all.includes(k)),
        );
        const scopes = withRuntime(world.scopes, { ...world.scopes.runtime, keys: runtimeKeys });
        let intent = setWebSearch(world.intent, "follow");
        for (const k of moreSpecific) intent = setKey(intent, k, "follow");
        intent = setKey(intent, key, value ? "on" : "off");
        expectDecided(
          freezeWorld({ ...world, scopes, intent }),
          world,
          target,
          "conversation",
          key,
          value,
        );
      }),
    );
  });
});

describe("the capability floor", () => {
  const everythingOn: ScopeLayer = {
    keys: Object.fromEntries(SCOPE_KEYS.map((key) => [key, true])),
  };

  it("never enables a tool whose capability is missing or unavailable, whatever the scopes say", () => {
    fc.assert(
      fc.property(worldArb, fc.boolean(), (world, allOn) => {
        let scopes = world.scopes;
        let intent = world.intent;
        if (allOn) {
          scopes = {
            global: everythingOn,
            workspace: everythingOn,
            channel: everythingOn,
            runtime: everythingOn,
          };
          for (const key of SCOPE_KEYS) intent = setKey(intent, key, "on");
        }
        const contract = freezeWorld({ ...world, scopes, intent });
        for (const t of world.tools) {
          if (!t.capability || capabilityStatus(world.capabilities, t.capability).available)
            continue;
          expect(contract.resolution.states.get(t.id)?.status).toBe("absent");
          expect(contract.callable.has(t.id)).toBe(false);
          expect(contract.deferred).not.toContain(t.id);
          expect(tombstoneFor(contract, t.id)?.kind).toBe("absent");
          expect(
            runToolSearch(contract, new ToolRegistry(world.tools), { load: [t.id] }).load,
          ).toEqual([]);
        }
      }),
    );
  });
});

describe("load modes and deferral", () => {
  it("splits the enabled set into disjoint resident and deferred parts, the same set in every mode", () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const enabled = freezeWorld(world).resolution.states;
        const enabledSet = [...enabled.values()]
          .filter((s) => s.status === "enabled")
          .map((s) => s.id);
        for (const mode of LOAD_MODES) {
          const scopes = withRuntime(world.scopes, { ...world.scopes.runtime, mode });
          const contract = freezeWorld({ ...world, scopes });
          const resident = withoutSearch(contract.resident);
          expect(resident.filter((id) => contract.deferred.includes(id))).toEqual([]);
          expect([...resident, ...contract.deferred].sort()).toEqual([...enabledSet].sort());
          expect(enabledIds(contract)).toEqual(enabledSet);
          if (mode === "full") expect(contract.deferred).toEqual([]);
          if (mode === "minimal") expect(contract.catalog).toBe("");
          for (const id of world.essential) {
            expect(contract.deferred).not.toContain(id);
          }
        }
      }),
    );
  });

  it("gives the same split when frozen again with the contract's own mounts", () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const first = freezeWorld(world);
        const again = freezeWorld({
          ...world,
          intent: { ...world.intent, mounted: first.mounted },
        });
        expect(again.resident).toEqual(first.resident);
        expect(again.deferred).toEqual(first.deferred);
        expect(again.tools).toBe(first.tools);
      }),
    );
  });

  it("treats loading what is already loaded, or not loadable, as a no-op", () => {
    fc.assert(
      fc.property(worldArb, fc.subarray([...POOL_IDS, "ghost"]), (world, extra) => {
        const registry = new ToolRegistry(world.tools);
        const contract = freezeWorld(world, registry);
        const notDeferred = extra.filter((id) => !contract.deferred.includes(id));
        expect(appendLoaded(contract, registry, [...contract.resident, ...notDeferred])).toBe(
          contract,
        );
      }),
    );
  });

  it("appends loads to the bytes, and the next turn starts from exactly those bytes", () => {
    fc.assert(
      fc.property(worldArb, fc.array(fc.nat()), (world, picks) => {
        const registry = new ToolRegistry(world.tools);
        const contract = freezeWorld(world, registry);
        const load = picks.map((n) => contract.deferred[n % Math.max(1, contract.deferred.length)]);
        const ids = load.filter((id): id is string => id !== undefined);
        const after = appendLoaded(contract, registry, ids);
        if (!contract.discovery || ids.length === 0) {
          expect(after).toBe(contract);
          return;
        }
        const loaded = after.resident.slice(contract.resident.length);
        expect(loaded).toEqual([...new Set(ids)]);
        expect(after.tools.startsWith(contract.tools.slice(0, -1))).toBe(true);
        expect(after.catalog).toBe(contract.catalog);
        expect(after.mounted).toEqual([...contract.mounted, ...loaded]);
        expect(appendLoaded(after, registry, ids)).toBe(after);

        const next = freezeWorld({ ...world, intent: mount(world.intent, loaded) }, registry);
        expect(next.tools).toBe(after.tools);
        expect(next.resident).toEqual(after.resident);
      }),
    );
  });

  it("answers every call it cannot run with the tombstone for the tool's state", () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const contract = freezeWorld(world);
        for (const [id, state] of contract.resolution.states) {
          const tombstone = tombstoneFor(contract, id);
          if (contract.callable.has(id)) {
            expect(tombstone).toBeUndefined();
            continue;
          }
          const kind = { enabled: "deferred", disabled: "disabled", absent: "absent" }[
            state.status
          ];
          expect(tombstone?.kind).toBe(kind);
          expect(tombstone?.text).toContain(`"${id}"`);
        }
        expect(tombstoneFor(contract, "no_such_tool")?.kind).toBe("unknown");
      }),
    );
  });
});
