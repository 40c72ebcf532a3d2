import { z } from "zod";
import type { Switch } from "../availability/intent.ts";
import type { KeyValue } from "../availability/keys.ts";
import type { LoadMode } from "../loading/modes.ts";
import { type AccessConfig, accessSection } from "./access-section.ts";
import { loadModeField } from "./agent-section.ts";
import { type DelegationLimits, delegatesField, delegationField } from "./delegation-section.ts";
import { describeValue } from "./errors.ts";
import { flag } from "./flag.ts";
import { type LimitsConfig, limitsSection } from "./limits-section.ts";
import {
  checkOneChoice,
  type PersonaChoice,
  personaChoice,
  personaKeys,
} from "./persona-section.ts";
import { strictMap } from "./section-map.ts";
import { skillsSection } from "./skills-section.ts";
import { toolsSection } from "./tools-section.ts";

export { DEFAULT_DELEGATION, type DelegationLimits } from "./delegation-section.ts";

/** The id of the agent the config's top-level settings make: every config has it. */
export const DEFAULT_AGENT = "default";

/**
 * One agent of `agents:`: a persona, a model, a base intent, skills and a
 * load mode under a name. Bindings (`bindings:`, `/agent`) pick which one
 * answers a conversation; see docs/config/agents.md.
 *
 * ```yaml
 * agents:
 *   - id: support
 *     name: Support desk
 *     persona_file: ./personas/support.md   # or persona: inline
 *     model: gpt-4.1-mini                    # a models.list name
 *     fallback: [gpt-4.1]                    # optional: instead of the entry's own
 *     toolset: support                       # the base intent: a toolsets: name,
 *     web_search: off                        # the web-search layer,
 *     tools: { refund_order: ask }           # per-key decisions (on, off, ask)
 *     skills: { meeting-notes: off }
 *     mode: default
 *     limits: { user: 10/10m }               # optional: instead of the top-level limits:
 * ```
 */
export interface AgentConfig {
  readonly id: string;
  /** What people read in `/agent`; the id when the config names none. */
  readonly name: string;
  /** Unset: the persona the top-level `agent:` section gives the conversation. */
  readonly persona?: PersonaChoice;
  /** A `models:` list name; unset: the model the conversation would use without an agent. */
  readonly model?: string;
  /** Models tried in order when a step fails before answering; unset: the model entry's own `fallback:`. */
  readonly fallback?: readonly string[];
  /** The base intent's toolset; it names a key of `toolsets:`. */
  readonly toolset?: string;
  /** The base intent's web-search layer. */
  readonly webSearch?: Switch;
  /** The base intent's per-key decisions: on, off or `ask`. */
  readonly tools: Readonly<Record<string, KeyValue>>;
  /** Skill name -> on/off, over the config's `skills:`. */
  readonly skills: Readonly<Record<string, boolean>>;
  readonly mode?: LoadMode;
  /** Replaces the top-level `access:` where this agent answers. */
  readonly access?: AccessConfig;
  /** Replaces the top-level `limits:` where this agent answers. */
  readonly limits?: LimitsConfig;
  /** The agents this one may ask with `ask_agent`; unset or empty: none (no `ask_agent`). */
  readonly delegates?: readonly string[];
  /** What a delegation this agent starts may spend; see {@link DelegationLimits}. */
  readonly delegation?: DelegationLimits;
}

export type AgentsConfig = readonly AgentConfig[];
export const NO_AGENTS: AgentsConfig = Object.freeze([]);

/** Agent ids: what people type after `/agent`. */
export const AGENT_ID = /^[a-z][a-z0-9_-]{0,31}$/;

const text = (what: string) =>
  z.string({ error: (iss) => `expected ${what}, found ${describeValue(iss.input)}.` }).min(1, {
    error: `expected ${what}, found an empty string.`,
  });

const modelNames = z.array(text("a model name from models.list"), {
  error: (iss) =>
    `expected a list of model names, e.g. [gpt-4.1], found ${describeValue(iss.input)}.`,
});

const entry = strictMap(
  {
    id: text("the agent's id, e.g. support").refine((id) => AGENT_ID.test(id), {
      error: (iss) =>
        `${describeValue(iss.input)} is not an agent id. Use lowercase letters, digits, "_" and "-", starting with a letter, e.g. support.`,
    }),
    name: text("the agent's display name").optional(),
    ...personaKeys,
    model: text("a model name from models.list").optional(),
    fallback: modelNames.optional(),
    toolset: text("a toolset name").optional(),
    web_search: flag.optional(),
    tools: z.preprocess((value) => value ?? {}, toolsSection),
    skills: z.preprocess((value) => value ?? {}, skillsSection),
    mode: loadModeField.optional(),
    access: accessSection.optional(),
    limits: limitsSection.optional(),
    delegates: delegatesField.optional(),
    delegation: delegationField.optional(),
  },
  {
    takes:
      "An agent takes id:, name:, persona: or persona_file:, model:, fallback:, toolset:, web_search:, tools:, skills:, mode:, access:, limits:, delegates: and delegation:.",
    notAMap: (found) => `expected a map such as { id: support, persona: ... }, found ${found}.`,
  },
)
  .superRefine((raw, ctx) => checkOneChoice(raw, ctx, []))
  .transform((raw): AgentConfig => {
    const persona = personaChoice(raw);
    return Object.freeze({
      id: raw.id,
      name: raw.name ?? raw.id,
      ...(persona ? { persona } : {}),
      ...(raw.model !== undefined ? { model: raw.model } : {}),
      ...(raw.fallback !== undefined ? { fallback: Object.freeze([...raw.fallback]) } : {}),
      ...(raw.toolset !== undefined ? { toolset: raw.toolset } : {}),
      ...(raw.web_search !== undefined ? { webSearch: raw.web_search ? "on" : "off" } : {}),
      tools: Object.freeze(raw.tools),
      skills: Object.freeze(raw.skills),
      ...(raw.mode !== undefined ? { mode: raw.mode } : {}),
      ...(raw.access !== undefined ? { access: raw.access } : {}),
      ...(raw.limits !== undefined ? { limits: raw.limits } : {}),
      ...(raw.delegates !== undefined ? { delegates: raw.delegates } : {}),
      ...(raw.delegation !== undefined ? { delegation: raw.delegation } : {}),
    });
  });

/** The `agents:` section: a list of agents, each id once; `default` is the top-level settings' own. */
export const agentsSection: z.ZodType<AgentsConfig, unknown> = z
  .array(entry, {
    error: (iss) =>
      `expected a list of agents, each a map with id:, found ${describeValue(iss.input)}.`,
  })
  .superRefine((agents, ctx) => {
    const seen = new Set<string>();
    agents.forEach((agent, index) => {
      if (agent.id === DEFAULT_AGENT) {
        ctx.addIssue({
          code: "custom",
          path: [index, "id"],
          message: `"${DEFAULT_AGENT}" is the agent the top-level settings make (agent:, tools:, skills:); give this one another id.`,
        });
      } else if (seen.has(agent.id)) {
        ctx.addIssue({
          code: "custom",
          path: [index, "id"],
          message: `"${agent.id}" is listed twice. Each agent has its own id.`,
        });
      }
      seen.add(agent.id);
    });
  })
  .transform((agents): AgentsConfig => Object.freeze(agents));
