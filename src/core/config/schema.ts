import { z } from "zod";
import type { KeyValue } from "../availability/keys.ts";
import type { LoadMode } from "../loading/modes.ts";
import { defineToolsets, type Toolsets } from "../tools/toolsets.ts";
import { type AccessConfig, accessSection, DEFAULT_ACCESS } from "./access-section.ts";
import { agentSection } from "./agent-section.ts";
import { checkAgents } from "./agents-check.ts";
import { type AgentsConfig, agentsSection, NO_AGENTS } from "./agents-section.ts";
import { type ApprovalsConfig, approvalsSection, DEFAULT_APPROVALS } from "./approvals-section.ts";
import {
  type AttachmentsConfig,
  attachmentsSection,
  DEFAULT_ATTACHMENTS,
} from "./attachments-section.ts";
import { type BindingsConfig, bindingsSection, NO_BINDINGS } from "./bindings-section.ts";
import { type BudgetsConfig, budgetsSection, DEFAULT_BUDGETS } from "./budgets-section.ts";
import { type ConsoleConfig, consoleSection, DEFAULT_CONSOLE } from "./console-section.ts";
import type { DelegationLimits } from "./delegation-section.ts";
import { describeValue } from "./errors.ts";
import { type HooksConfig, hooksSection, NO_HOOKS } from "./hooks-section.ts";
import { DEFAULT_LIMITS, type LimitsConfig, limitsSection } from "./limits-section.ts";
import { DEFAULT_MCP, type McpConfig, mcpSection } from "./mcp-section.ts";
import { DEFAULT_MEMORY, type MemoryConfig, memorySection } from "./memory-section.ts";
import { DEFAULT_MODEL_SECTION, type ModelSection, modelSection } from "./model-section.ts";
import { DEFAULT_MODELS, type ModelsConfig, modelsSection } from "./models-section.ts";
import {
  DEFAULT_PERMISSIONS,
  type PermissionsConfig,
  permissionsSection,
} from "./permissions-section.ts";
import type { PersonaConfig } from "./persona-section.ts";
import type {
  PlatformConfigs,
  PlatformName,
  PlatformSection,
  PlatformSections,
} from "./platform-section.ts";
import { NO_PLUGINS, type PluginsConfig, pluginsSection } from "./plugins-section.ts";
import { DEFAULT_QUEUE, type QueueConfig, queueSection } from "./queue-section.ts";
import { DEFAULT_REDIS, type RedisConfig, redisSection } from "./redis-section.ts";
import { DEFAULT_REMINDERS, type RemindersConfig, remindersSection } from "./reminders-section.ts";
import { NO_SCHEDULES, type SchedulesConfig, schedulesSection } from "./schedules-section.ts";
import { section } from "./section-map.ts";
import {
  NO_SKILL_FOLDERS,
  type SkillFolders,
  skillFoldersSection,
} from "./skill-folders-section.ts";
import { skillsSection } from "./skills-section.ts";
import { DEFAULT_TELEMETRY, type TelemetryConfig, telemetrySection } from "./telemetry-section.ts";
import { toolsSection } from "./tools-section.ts";
import { toolsetsSection } from "./toolsets-section.ts";
import {
  DEFAULT_TRANSCRIPTION,
  type TranscriptionConfig,
  transcriptionSection,
} from "./transcription-section.ts";
import { DEFAULT_WEB, type WebConfig, webSection } from "./web-section.ts";

/**
 * The global config file, read and checked. Tool keys are flattened
 * (`mcp: { github: on }` is `"mcp:github": true`) and toolsets are merged over
 * the built-ins `default` and `full`. Each platform's section (`slack`,
 * `discord`, `telegram`) is declared in its own folder ({@link PlatformConfigs}).
 */
export interface SwitchyardConfig extends PlatformConfigs {
  /** The global scope's key decisions (tool ids, `mcp:<server>`, `mcp`, `all`): on, off or `ask`. */
  readonly tools: Readonly<Record<string, KeyValue>>;
  readonly toolsets: Toolsets;
  readonly agent: PersonaConfig & {
    readonly mode?: LoadMode;
    /** The global scope's toolset; it names a key of `toolsets`. */
    readonly toolset?: string;
    /** Replaces DEFAULT_ESSENTIAL when set. */
    readonly essential?: readonly string[];
    /** The agents `default` may ask with `ask_agent`; unset: none. */
    readonly delegates?: readonly string[];
    /** What a delegation `default` starts may spend. */
    readonly delegation?: DelegationLimits;
  };
  /** Skill name -> on/off: the global scope's skill toggles. */
  readonly skills: Readonly<Record<string, boolean>>;
  /** The `skill_folders:` section: where skills live besides the built-ins. */
  readonly skillFolders: SkillFolders;
  /** Who may change which scope from chat. */
  readonly permissions: PermissionsConfig;
  /** How tool calls that ask first are decided: the wait, and who may approve (per workspace and channel too). */
  readonly approvals: ApprovalsConfig;
  /** Who may talk to the bot at all: DM and group policies, the allow list. */
  readonly access: AccessConfig;
  /** How many messages the bot takes per person, conversation and workspace. */
  readonly limits: LimitsConfig;
  /** Limits of the `remember` tools. */
  readonly memory: MemoryConfig;
  /** The reminder tools' default zone and limits. */
  readonly reminders: RemindersConfig;
  /** Turns the bot gives itself on a timing (see `schedules-section.ts`). */
  readonly schedules: SchedulesConfig;
  /** Turns the bot gives itself when something outside calls `POST /hooks/<name>` (see `hooks-section.ts`). */
  readonly hooks: HooksConfig;
  /** `web_search`'s provider and `fetch_url`'s limits and address policy. */
  readonly web: WebConfig;
  /** MCP servers, each a tool family `mcp:<server>`, and their timeouts. */
  readonly mcp: McpConfig;
  /** How long the bot waits for the model and how much of a reply it keeps. */
  readonly model: ModelSection;
  /** Caps and sizes for the files people send. */
  readonly attachments: AttachmentsConfig;
  /** The `/audio/transcriptions` endpoint voice notes go to (the `transcription` capability). */
  readonly transcription: TranscriptionConfig;
  /** Which Redis: one node, a cluster or Sentinel (the environment wins). Read at start. */
  readonly redis: RedisConfig;
  /** The conversation queue's shards and acknowledgement. Read at start. */
  readonly queue: QueueConfig;
  /** The models `/model` may switch to, their prices, and each workspace's and channel's. */
  readonly models: ModelsConfig;
  /** Daily token budgets per person and per workspace. */
  readonly budgets: BudgetsConfig;
  /** Modules of tools, skills and channels to load, as written (files relative to the config file). Read at start. */
  readonly plugins: PluginsConfig;
  /** Named agents beside the implicit `default` one (the top-level settings); see agents-section.ts. */
  readonly agents: AgentsConfig;
  /** Which agent answers where: bot accounts, workspaces and channels. */
  readonly bindings: BindingsConfig;
  /** OpenTelemetry traces: where they go, and whether tool content is captured. Read at start. */
  readonly telemetry: TelemetryConfig;
  /** The operator web console: whether it is served. Read at start. */
  readonly console: ConsoleConfig;
}

/**
 * What the config file is: its schema, the sections it reads and what an
 * empty file reads as. The core's sections are fixed; the platforms' are
 * handed to {@link defineConfigFormat}.
 */
export interface ConfigFormat {
  /**
   * The whole file. Unknown top-level keys pass through here (later versions
   * add sections); the reader reports them as warnings. Typed by its output:
   * the inferred type of the raw sections (the tools map's `mcp` key beside
   * its index signature) cannot be written in a .d.ts that compiles for a
   * package's users.
   */
  readonly schema: z.ZodType<SwitchyardConfig, unknown>;
  /** The sections it reads; any other top-level key is reported and ignored. */
  readonly sections: readonly string[];
  /** An empty file: every section's defaults. */
  readonly empty: SwitchyardConfig;
}

/*
 * The core's sections, split where the platforms' sections go, so a file's
 * problems are found in the order they always were.
 */
const LEADING_SECTIONS = {
  tools: section(toolsSection),
  toolsets: section(toolsetsSection),
  agent: section(agentSection),
  skills: section(skillsSection),
  skill_folders: section(skillFoldersSection),
  permissions: section(permissionsSection),
  approvals: section(approvalsSection),
  access: section(accessSection),
  limits: section(limitsSection),
};

const TRAILING_SECTIONS = {
  memory: section(memorySection),
  reminders: section(remindersSection),
  schedules: z.preprocess((value) => value ?? [], schedulesSection),
  hooks: z.preprocess((value) => value ?? [], hooksSection),
  web: section(webSection),
  mcp: section(mcpSection),
  model: section(modelSection),
  attachments: section(attachmentsSection),
  transcription: section(transcriptionSection),
  redis: section(redisSection),
  queue: section(queueSection),
  models: section(modelsSection),
  budgets: section(budgetsSection),
  plugins: z.preprocess((value) => value ?? [], pluginsSection),
  agents: z.preprocess((value) => value ?? [], agentsSection),
  bindings: z.preprocess((value) => value ?? [], bindingsSection),
  telemetry: section(telemetrySection),
  console: section(consoleSection),
};

/**
 * The config file of a build that knows `platforms`: the core's sections
 * with each platform's beside them.
 *
 * @example
 * const format = defineConfigFormat({ slack: slackPlatformSection, ... });
 * const { parseConfig } = configReader(format);
 */
export function defineConfigFormat(platforms: PlatformSections): ConfigFormat {
  const known: readonly PlatformSection<PlatformName>[] = Object.values(platforms);
  const platformShape: z.core.$ZodLooseShape = Object.fromEntries(
    known.map((p) => [p.name, section(p.schema)]),
  );
  /** The platforms' sections of a parsed file; every one is there, its schema defaults it. */
  const platformsOf = (config: Readonly<Record<string, unknown>>) =>
    Object.fromEntries(known.map((p) => [p.name, config[p.name]])) as unknown as PlatformConfigs;

  const schema: z.ZodType<SwitchyardConfig, unknown> = z
    .looseObject(
      { ...LEADING_SECTIONS, ...platformShape, ...TRAILING_SECTIONS },
      {
        error: (iss) =>
          `expected a map of sections such as tools:, toolsets:, agent:, skills: and skill_folders:, found ${describeValue(iss.input)}.`,
      },
    )
    .superRefine((config, ctx) => {
      const name = config.agent.toolset;
      if (name === undefined || Object.hasOwn(config.toolsets, name)) return;
      ctx.addIssue({
        code: "custom",
        path: ["agent", "toolset"],
        message: `${describeValue(name)} is not a defined toolset. Define toolsets.${name}, or use one of: ${Object.keys(config.toolsets).sort().join(", ")}.`,
      });
    })
    .superRefine((config, ctx) => checkAgents(config, ctx))
    .transform(
      (config): SwitchyardConfig =>
        Object.freeze({
          tools: Object.freeze(config.tools),
          toolsets: config.toolsets,
          agent: Object.freeze(config.agent),
          skills: Object.freeze(config.skills),
          skillFolders: config.skill_folders,
          permissions: config.permissions,
          approvals: config.approvals,
          access: config.access,
          limits: config.limits,
          ...platformsOf(config),
          memory: config.memory,
          reminders: config.reminders,
          schedules: config.schedules,
          hooks: config.hooks,
          web: config.web,
          mcp: config.mcp,
          model: config.model,
          attachments: config.attachments,
          transcription: config.transcription,
          redis: config.redis,
          queue: config.queue,
          models: config.models,
          budgets: config.budgets,
          plugins: config.plugins,
          agents: config.agents,
          bindings: config.bindings,
          telemetry: config.telemetry,
          console: config.console,
        }),
    );

  const empty: SwitchyardConfig = Object.freeze({
    tools: Object.freeze({}),
    toolsets: defineToolsets(),
    agent: Object.freeze({}),
    skills: Object.freeze({}),
    skillFolders: NO_SKILL_FOLDERS,
    permissions: DEFAULT_PERMISSIONS,
    approvals: DEFAULT_APPROVALS,
    access: DEFAULT_ACCESS,
    limits: DEFAULT_LIMITS,
    ...platformsOf(Object.fromEntries(known.map((p) => [p.name, p.defaults]))),
    memory: DEFAULT_MEMORY,
    reminders: DEFAULT_REMINDERS,
    schedules: NO_SCHEDULES,
    hooks: NO_HOOKS,
    web: DEFAULT_WEB,
    mcp: DEFAULT_MCP,
    model: DEFAULT_MODEL_SECTION,
    attachments: DEFAULT_ATTACHMENTS,
    transcription: DEFAULT_TRANSCRIPTION,
    redis: DEFAULT_REDIS,
    queue: DEFAULT_QUEUE,
    models: DEFAULT_MODELS,
    budgets: DEFAULT_BUDGETS,
    plugins: NO_PLUGINS,
    agents: NO_AGENTS,
    bindings: NO_BINDINGS,
    telemetry: DEFAULT_TELEMETRY,
    console: DEFAULT_CONSOLE,
  });

  const sections = Object.freeze([
    ...Object.keys(LEADING_SECTIONS),
    ...known.map((p) => p.name),
    ...Object.keys(TRAILING_SECTIONS),
  ]);
  return Object.freeze({ schema, sections, empty });
}
