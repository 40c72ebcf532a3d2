import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelVision, type VisionDeclarations } from "../../src/core/attachments/model-vision.ts";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import { EMPTY_INTENT, type Intent, setKey } from "../../src/core/availability/intent.ts";
import { overlayLayer, type ScopeLayer } from "../../src/core/availability/scopes.ts";
import { globalLayer } from "../../src/core/config/index.ts";
import { freezeTurn } from "../../src/core/loading/freeze.ts";
import { WarnOnce } from "../../src/core/logger.ts";
import { EMPTY_CONFIG, parseConfig } from "../../src/platforms/config.ts";
import type { Store, StoredSettings } from "../../src/store/index.ts";
import {
  type ContractSources,
  type ConversationState,
  freezeState,
} from "../../src/turn/contract.ts";
import { registryOf, tool } from "../support/tools.ts";

const address = { platform: "slack", workspace: "T1", channel: "C1", conversation: "C1" };

/** A bot on a text model that lists a vision model people may switch to. */
const MODELS_CONFIG = parseConfig(
  [
    "models:",
    "  list:",
    "    - name: text-model",
    "    - name: vision-model",
    "      capabilities: { vision: true }",
  ].join("\n"),
  "test.yaml",
);
const VISION: VisionDeclarations = {
  botModel: "text-model",
  declared: false,
  models: MODELS_CONFIG.models,
};
const NO_SETTINGS: StoredSettings = { conversation: {}, channel: {} };
const onModel = (model: string | undefined): StoredSettings =>
  model === undefined ? NO_SETTINGS : { conversation: { model }, channel: {} };

/** What freezeState must always equal: a fresh freeze of the same inputs. */
function fresh(sources: ContractSources, state: ConversationState) {
  const config = sources.config();
  return freezeTurn(
    sources.registry,
    {
      global: overlayLayer(globalLayer(config), state.layers.globalOverlay),
      workspace: state.layers.workspace,
      channel: state.layers.channel,
      runtime: sources.runtime,
    },
    state.intent.intent,
    sources.capabilities(state.settings.conversation.model),
    { toolsets: config.toolsets, warnings: sources.warnings },
  );
}

type Step =
  | { kind: "register"; n: number }
  | { kind: "intent"; key: string; on: boolean }
  | { kind: "channel"; key: string; on: boolean }
  | { kind: "capability"; available: boolean }
  | { kind: "model"; model: string | undefined };

const keyArb = fc.constantFrom("current_time", "fetch_url", "web_search", "extra_1", "mcp", "all");
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("register" as const), n: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constant("intent" as const), key: keyArb, on: fc.boolean() }),
  fc.record({ kind: fc.constant("channel" as const), key: keyArb, on: fc.boolean() }),
  fc.record({ kind: fc.constant("capability" as const), available: fc.boolean() }),
  fc.record({
    kind: fc.constant("model" as const),
    model: fc.constantFrom(undefined, "text-model", "vision-model"),
  }),
);

describe("freezeState's memory of contracts", () => {
  it("never answers a stale contract: after any change, the same bytes as a fresh freeze", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), (steps) => {
        const registry = registryOf(
          tool("current_time"),
          tool("fetch_url"),
          tool("web_search", { capability: "search_provider" }),
          tool("image_describe", { capability: "vision" }),
        );
        let capabilities: Capabilities = {};
        let intent: Intent = EMPTY_INTENT;
        let channel: ScopeLayer = {};
        let settings = NO_SETTINGS;
        const sources: ContractSources = {
          store: {} as Store,
          registry,
          capabilities: (model) => ({ ...capabilities, vision: modelVision(model, VISION) }),
          config: () => MODELS_CONFIG,
          runtime: {},
          warnings: new WarnOnce(),
        };
        const state = (): ConversationState => ({
          intent: { intent, problems: [] },
          layers: {
            workspace: {},
            channel,
            globalOverlay: {},
            skills: {},
          } as ConversationState["layers"],
          settings,
        });
        for (const step of steps) {
          if (step.kind === "register" && !registry.has(`extra_${step.n}`)) {
            registry.register(tool(`extra_${step.n}`));
          } else if (step.kind === "intent") {
            intent = setKey(intent, step.key, step.on ? "on" : "off");
          } else if (step.kind === "channel") {
            channel = { keys: { ...channel.keys, [step.key]: step.on } };
          } else if (step.kind === "capability") {
            capabilities = {
              search_provider: step.available
                ? { available: true }
                : { available: false, reason: "no search API key is configured" },
            } as Capabilities;
          } else if (step.kind === "model") {
            settings = onModel(step.model);
          }
          const remembered = freezeState(sources, address, state());
          const expected = fresh(sources, state());
          expect(remembered.tools).toBe(expected.tools);
          expect(remembered.catalog).toBe(expected.catalog);
          expect(remembered.hash).toBe(expected.hash);
          expect([...remembered.callable].sort()).toEqual([...expected.callable].sort());
        }
      }),
    );
  });

  it("freezes once for conversations in the same state", () => {
    const registry = registryOf(tool("current_time"), tool("fetch_url"));
    const sources: ContractSources = {
      store: {} as Store,
      registry,
      capabilities: () => ({}),
      config: () => EMPTY_CONFIG,
      runtime: {},
      warnings: new WarnOnce(),
    };
    const state: ConversationState = {
      intent: { intent: EMPTY_INTENT, problems: [] },
      layers: {
        workspace: {},
        channel: {},
        globalOverlay: {},
        skills: {},
      } as ConversationState["layers"],
      settings: NO_SETTINGS,
    };
    const first = freezeState(sources, address, state);
    expect(freezeState(sources, { ...address, conversation: "other" }, state)).toBe(first);
  });

  it("takes vision from the model the conversation runs on, at the floor: a text model's lack wins over /tools on", () => {
    const registry = registryOf(
      tool("current_time"),
      tool("image_describe", { capability: "vision" }),
    );
    const sources: ContractSources = {
      store: {} as Store,
      registry,
      capabilities: (model) => ({ vision: modelVision(model, VISION) }),
      config: () => MODELS_CONFIG,
      runtime: {},
      warnings: new WarnOnce(),
    };
    const state = (settings: StoredSettings): ConversationState => ({
      intent: { intent: setKey(EMPTY_INTENT, "image_describe", "on"), problems: [] },
      layers: {
        workspace: {},
        channel: {},
        globalOverlay: {},
        skills: {},
      } as ConversationState["layers"],
      settings,
    });
    const onText = freezeState(sources, address, state(NO_SETTINGS));
    expect(onText.callable.has("image_describe")).toBe(false);
    const onVision = freezeState(sources, address, state(onModel("vision-model")));
    expect(onVision.callable.has("image_describe")).toBe(true);
    // The channel's choice counts when the conversation has none; a model the list dropped is skipped.
    const viaChannel = { conversation: {}, channel: { model: "vision-model" } };
    expect(freezeState(sources, address, state(viaChannel)).hash).toBe(onVision.hash);
    expect(freezeState(sources, address, state(onModel("gone-model"))).hash).toBe(onText.hash);
    // The same model gives the same bytes (rule 2), from a fresh freeze too.
    expect(fresh(sources, state(onModel("vision-model"))).hash).toBe(onVision.hash);
    expect(onText.hash).not.toBe(onVision.hash);
  });
});
