import { createHash } from "node:crypto";
import type { Capabilities } from "../availability/capabilities.ts";
import type { Intent } from "../availability/intent.ts";
import {
  type AvailabilityPolicy,
  type Resolution,
  resolveAvailability,
} from "../availability/resolve.ts";
import type { ScopeStack } from "../availability/scopes.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { AnyTool } from "../tools/tool.ts";
import { renderCatalog } from "./catalog.ts";
import { TOOL_SEARCH_DIGEST, TOOL_SEARCH_ID, TOOL_SEARCH_WIRE } from "./discovery-tool.ts";
import { type LoadMode, modeAllowsDiscovery, modeIsCurated } from "./modes.ts";

/**
 * The frozen result for one turn. Built once at the turn boundary; only a
 * discovery load changes it during the turn, and only by appending.
 */
export interface TurnContract {
  readonly mode: LoadMode;
  /** The provider's `tools` array as canonical bytes: sorted keys, stable order. */
  readonly tools: string;
  /** Resident tool ids in array order, `tool_search` included when present. */
  readonly resident: readonly string[];
  /** Enabled tools that ship only their name, sorted. */
  readonly deferred: readonly string[];
  /** The deferred names, one per line; empty when nothing can be loaded. */
  readonly catalog: string;
  /** What the model may call now. */
  readonly callable: ReadonlySet<string>;
  /**
   * Enabled tools (resident, deferred or mounted) whose calls wait for a
   * person's approval (`ask`). Not part of the bytes or the hash: switching
   * a tool between `on` and `ask` never breaks the prompt cache (rule 2).
   */
  readonly asking: ReadonlySet<string>;
  /** Discovery loads in effect (the conversation's and this turn's), in load order. */
  readonly mounted: readonly string[];
  /** Whether `tool_search` is offered. */
  readonly discovery: boolean;
  /** How every tool was decided, for tombstones and `/tools`. */
  readonly resolution: Resolution;
  /** Each resident tool's digest, in array order. */
  readonly digests: readonly string[];
  /** A digest of mode, tools and catalog: equal contracts, equal hashes. */
  readonly hash: string;
}

/**
 * Freezes a turn: resolves availability, splits the enabled tools into
 * resident and deferred by the load mode, and serializes the resident array.
 *
 * The array is: the resident tools by id, then `tool_search`, then the
 * discovery mounts in the order they were loaded. Mounts go last so that a
 * load mid-turn appends, and the next turn starts with the same bytes.
 */
export function freezeTurn(
  registry: ToolRegistry,
  scopes: ScopeStack,
  intent: Intent,
  capabilities: Capabilities,
  policy: AvailabilityPolicy = {},
): TurnContract {
  const resolution = resolveAvailability(registry, scopes, intent, capabilities, policy);
  const { mode, states, essential } = resolution;
  const curated = modeIsCurated(mode);
  const mountedSet = new Set(intent.mounted);

  const base: string[] = [];
  const baseWires: string[] = [];
  const digests: string[] = [];
  const deferred: string[] = [];
  const asking = new Set<string>();
  for (const tool of registry.list()) {
    const state = states.get(tool.id);
    if (state?.status !== "enabled") continue;
    if (state.ask !== undefined) asking.add(tool.id);
    const keep =
      mode === "full" ||
      essential.has(tool.id) ||
      state.standing ||
      (curated ? false : tool.defer !== true);
    if (keep) {
      base.push(tool.id);
      baseWires.push(tool.wire);
      digests.push(tool.digest);
    } else if (!mountedSet.has(tool.id)) {
      deferred.push(tool.id);
    }
  }

  const baseSet = new Set(base);
  const mounted = intent.mounted.filter(
    (id) => !baseSet.has(id) && states.get(id)?.status === "enabled",
  );
  const discovery = modeAllowsDiscovery(mode) && (deferred.length > 0 || mounted.length > 0);
  const resident = [...base];
  const wires = baseWires;
  if (discovery) {
    resident.push(TOOL_SEARCH_ID);
    wires.push(TOOL_SEARCH_WIRE);
    digests.push(TOOL_SEARCH_DIGEST);
  }
  for (const id of mounted) {
    const tool = registry.get(id) as AnyTool;
    resident.push(id);
    wires.push(tool.wire);
    digests.push(tool.digest);
  }
  const tools = `[${wires.join(",")}]`;
  const catalog = discovery ? renderCatalog(deferred) : "";
  return {
    mode,
    tools,
    resident,
    deferred,
    catalog,
    callable: new Set(resident),
    asking,
    mounted,
    discovery,
    resolution,
    digests,
    hash: contractHash(mode, digests, catalog),
  };
}

/**
 * Appends tools loaded by discovery to the contract, for the next provider
 * request of the same turn. Only deferred tools load; anything else is left
 * out (the discovery tool explains why to the model). The catalog is kept as
 * it was: the system prompt does not change mid-turn.
 */
export function appendLoaded(
  contract: TurnContract,
  registry: ToolRegistry,
  ids: readonly string[],
): TurnContract {
  const loading = [...new Set(ids)].filter(
    (id) => contract.deferred.includes(id) && registry.has(id),
  );
  if (loading.length === 0 || !contract.discovery) return contract;
  const added = loading.map((id) => registry.get(id) as AnyTool);
  const tools = `${contract.tools.slice(0, -1)},${added.map((t) => t.wire).join(",")}]`;
  const digests = [...contract.digests, ...added.map((t) => t.digest)];
  const resident = [...contract.resident, ...loading];
  return {
    ...contract,
    tools,
    resident,
    deferred: contract.deferred.filter((id) => !loading.includes(id)),
    callable: new Set(resident),
    mounted: [...contract.mounted, ...loading],
    digests,
    hash: contractHash(contract.mode, digests, contract.catalog),
  };
}

/**
 * The contract hash covers the resident bytes through each tool's digest (a
 * hash of its wire, computed once when the tool is defined), so hashing a
 * turn costs a few bytes per tool rather than the whole array.
 */
export function contractHash(mode: LoadMode, digests: readonly string[], catalog: string): string {
  return createHash("sha256")
    .update(`${mode}\0${digests.join(",")}\0`)
    .update(catalog)
    .digest("hex")
    .slice(0, 16);
}
