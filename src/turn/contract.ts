import {
  type AgentChoice,
  type AgentDefinition,
  agentLayer,
  DELEGATION_CAPABILITY,
  delegatesAnywhere,
  delegationLimits,
  delegationStatus,
} from "../core/agents/index.ts";
import type { Capabilities } from "../core/availability/capabilities.ts";
import type { IntentReading } from "../core/availability/intent.ts";
import { overlayLayer, type ScopeLayer } from "../core/availability/scopes.ts";
import { globalLayer, modelFor, type SwitchyardConfig } from "../core/config/index.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import { conversationKey } from "../core/conversation.ts";
import { appendLoaded, freezeTurn, type TurnContract } from "../core/loading/freeze.ts";
import type { WarnOnce } from "../core/logger.ts";
import { resolveSkills, type SkillResolution, type SkillSource } from "../core/skills/index.ts";
import { canonicalJson } from "../core/tools/canonical-json.ts";
import type { ToolRegistry } from "../core/tools/registry.ts";
import type { Store, StoredSettings } from "../store/index.ts";
import { conversationAgent } from "./conversation-agent.ts";
import { conversationModel } from "./conversation-model.ts";

/** Where skills come from: the folders the loader reads, per workspace. */
export interface SkillSources {
  sourcesFor(address: ConversationAddress): readonly SkillSource[];
}

/** Where a conversation's contract comes from: the live registry, the config, and Redis. */
export interface ContractSources {
  readonly store: Store;
  /** The skill folders; without them the bot has no skills. */
  readonly skills?: SkillSources;
  readonly registry: ToolRegistry;
  /**
   * What the host has for a turn on `model` (a `models:` name; undefined:
   * the bot's own model). Only what depends on the model (`vision`) may
   * differ between models; a function that ignores it is process-wide.
   */
  readonly capabilities: (model?: string) => Capabilities;
  readonly config: () => SwitchyardConfig;
  readonly runtime: ScopeLayer;
  readonly warnings: WarnOnce;
  /** The bot's own model (`SWITCHYARD_MODEL`), used where no other is chosen; for `/model` and prices. */
  readonly model?: string;
}

/** What a conversation's contract is frozen from, as read from Redis in one go. */
export interface ConversationState {
  readonly intent: IntentReading;
  readonly layers: Awaited<ReturnType<Store["scopes"]["readStack"]>>;
  /** The chat settings (`/model`): which model the conversation runs on decides `vision`. */
  readonly settings: StoredSettings;
}

export async function readConversationState(
  sources: ContractSources,
  address: ConversationAddress,
): Promise<ConversationState> {
  const [intent, layers, settings] = await Promise.all([
    sources.store.intent.read(address),
    sources.store.scopes.readStack(address),
    sources.store.settings.read(address),
  ]);
  return { intent, layers, settings };
}

/**
 * A child turn of a delegation (`ask_agent`): the agent asked, and how many
 * levels of agents may still run below it.
 */
export interface ChildAgent {
  readonly agent: AgentDefinition;
  readonly levelsLeft: number;
}

/**
 * What the host has for the conversation's next turn: its capabilities for
 * the model the conversation runs on (see {@link conversationModel}), so a
 * conversation switched to a text model has no `vision`, whatever the bot's
 * own model takes, and `delegation` when its agent may ask others. Derived
 * from the config and the stored choice alone: the same state gives the
 * same set, and so the same contract (rule 2). For a child turn, those of
 * its agent's model and its level.
 */
export function conversationCapabilities(
  sources: ContractSources,
  address: ConversationAddress,
  state: ConversationState,
  child?: ChildAgent,
): Capabilities {
  const config = sources.config();
  const agent = child?.agent ?? conversationAgent(config, address, state.settings).agent;
  const model = child
    ? childModel(config, address, child.agent)
    : conversationModel(config.models, address, state.settings, agent);
  const capabilities = sources.capabilities(model);
  // Only a config that can delegate says anything about it: other bots' capabilities stay as they were.
  if (!delegatesAnywhere(config)) return capabilities;
  const levels = child?.levelsLeft ?? delegationLimits(agent).depth;
  return { ...capabilities, [DELEGATION_CAPABILITY]: delegationStatus(agent, levels) };
}

/**
 * The model a child turn runs on: its agent's own, else the config's
 * channel or workspace mapping; undefined: the bot's own. A `/model` choice
 * in chat was made for the conversation's agent, so it does not apply.
 */
export function childModel(
  config: SwitchyardConfig,
  address: ConversationAddress,
  agent: AgentDefinition,
): string | undefined {
  return modelFor(config.models, address, [agent.model]);
}

/** The agent that answers the conversation in this state, and the binding that decided. */
export function agentOfState(
  sources: ContractSources,
  address: ConversationAddress,
  state: ConversationState,
): AgentChoice {
  const choice = conversationAgent(sources.config(), address, state.settings);
  for (const { scope, agent } of choice.skipped) {
    sources.warnings.warn(
      `agent-binding:${scope}:${agent}`,
      `A ${scope} binding names the agent "${agent}", which the config no longer has; shallower bindings decide instead. Rebind it with /agent, or add the agent back to agents:.`,
    );
  }
  return choice;
}

/**
 * Freezes a conversation's contract: what a turn sends, and what `/tools`
 * shows. `loaded` are tools a turn in progress loaded by discovery, appended
 * as they were mid-turn. With `child`, a child turn's: its agent's base
 * intent over the same registry, scopes and floor, frozen the same way.
 */
export function freezeState(
  sources: ContractSources,
  address: ConversationAddress,
  state: ConversationState,
  loaded: readonly string[] = [],
  child?: ChildAgent,
): TurnContract {
  const { intent, problems } = state.intent;
  for (const problem of problems) {
    sources.warnings.warn(
      `intent:${conversationKey(address)}:${problem}`,
      `A stored intent field could not be read and is followed instead: ${problem}`,
    );
  }
  const config = sources.config();
  const { workspace, channel, globalOverlay } = state.layers;
  // The floor for this conversation's model; no scope below can revive what it lacks (rule 3).
  const capabilities = conversationCapabilities(sources, address, state, child);
  // The agent's base intent: the layer right above global, below the workspace's.
  const agent = child?.agent ?? agentOfState(sources, address, state).agent;
  const base = agentLayer(agent);
  const memo = frozenBy(sources);
  const key = memoKey(sources, config, capabilities, state, loaded, agent.id);
  const known = memo.get(key);
  if (known !== undefined) {
    // Most recently used last.
    memo.delete(key);
    memo.set(key, known);
    return known;
  }
  const contract = freezeTurn(
    sources.registry,
    {
      global: overlayLayer(globalLayer(config), globalOverlay),
      ...(base !== undefined ? { agent: base } : {}),
      workspace,
      channel,
      runtime: sources.runtime,
    },
    intent,
    capabilities,
    {
      toolsets: config.toolsets,
      ...(config.agent.essential ? { essential: config.agent.essential } : {}),
      warnings: sources.warnings,
      ...(base !== undefined ? { agent: agent.id } : {}),
    },
  );
  const result = loaded.length > 0 ? appendLoaded(contract, sources.registry, loaded) : contract;
  memo.set(key, result);
  if (memo.size > FROZEN_CONTRACTS) memo.delete(memo.keys().next().value as string);
  return result;
}

/**
 * Contracts remembered per process: freezing is a pure function of the
 * registry (by its version), the config, the capabilities, the scope layers,
 * the intent and the loaded tools, and most conversations share one state
 * (nobody changed anything), so a turn rarely freezes anew. Bounded, least
 * recently used first out.
 */
const FROZEN_CONTRACTS = 512;
// Per store, not per sources object: a worker hands each turn sources of its own (the
// turn's registry snapshot spread into a new object), and a memo per object never hit.
// Everything of the sources that freezing reads is in the key.
const memos = new WeakMap<Store, Map<string, TurnContract>>();
const identities = new WeakMap<object, number>();
let nextIdentity = 0;

function frozenBy(sources: ContractSources): Map<string, TurnContract> {
  let memo = memos.get(sources.store);
  if (memo === undefined) {
    memo = new Map();
    memos.set(sources.store, memo);
  }
  return memo;
}

/** A number for an object, the same as long as it lives: a config or a registry by identity. */
function identity(value: object): number {
  let id = identities.get(value);
  if (id === undefined) {
    id = nextIdentity++;
    identities.set(value, id);
  }
  return id;
}

function memoKey(
  sources: ContractSources,
  config: SwitchyardConfig,
  capabilities: Capabilities,
  state: ConversationState,
  loaded: readonly string[],
  agent: string,
): string {
  const { workspace, channel, globalOverlay } = state.layers;
  // The agent by id: its layer comes from the config, which is already in the key by identity.
  return canonicalJson([
    agent,
    identity(sources.registry),
    sources.registry.version,
    identity(config),
    capabilities,
    sources.runtime,
    workspace,
    channel,
    globalOverlay,
    state.intent.intent,
    loaded,
  ]);
}

/** The skills of a conversation's channel: discovered, shadowed and switched per scope. */
export function resolveConversationSkills(
  sources: ContractSources,
  address: ConversationAddress,
  state: ConversationState,
): SkillResolution {
  const toggles = state.layers.skills;
  const config = sources.config();
  const { agent } = agentOfState(sources, address, state);
  // An agent's skills switch over the config file's, per name.
  const skills =
    Object.keys(agent.skills).length > 0 ? { ...config.skills, ...agent.skills } : config.skills;
  return resolveSkills(
    sources.skills?.sourcesFor(address) ?? [],
    { config: skills, ...toggles },
    { warnings: sources.warnings },
  );
}

/** Reads and freezes in one call, for `/tools`. */
export async function freezeConversation(
  sources: ContractSources,
  address: ConversationAddress,
): Promise<TurnContract> {
  return freezeState(sources, address, await readConversationState(sources, address));
}
