import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  DEFAULT_ACCESS,
  DEFAULT_APPROVALS,
  DEFAULT_ATTACHMENTS,
  DEFAULT_BUDGETS,
  DEFAULT_CONSOLE,
  DEFAULT_LIMITS,
  DEFAULT_MCP,
  DEFAULT_MEMORY,
  DEFAULT_MODEL_LIMITS,
  DEFAULT_MODELS,
  DEFAULT_QUEUE,
  DEFAULT_REDIS,
  DEFAULT_REMINDERS,
  DEFAULT_TELEMETRY,
  DEFAULT_TRANSCRIPTION,
  DEFAULT_WEB,
  globalLayer,
  type SwitchyardConfig,
} from "../../src/core/config/index.ts";
import type { LoggerPort } from "../../src/core/logger.ts";
import { BUILTIN_TOOLSETS } from "../../src/core/tools/toolsets.ts";
import { EMPTY_CONFIG, parseConfig, readConfig, reloadConfig } from "../../src/platforms/config.ts";
import { DEFAULT_DISCORD } from "../../src/platforms/discord/config-section.ts";
import { DEFAULT_TELEGRAM } from "../../src/platforms/telegram/config-section.ts";

const FILE = "switchyard.yaml";

const EXAMPLE = `tools:
  web_search: on
  code_run: off
  mcp: { github: true, filesystem: off }
toolsets:
  research: [web_search, fetch_url, "mcp:*"]
  triage: { tools: [mcp:github], includes: [research] }
agent:
  mode: discover
  toolset: research
  essential: [current_time, recall]
skills:
  meeting-notes: off
skill_folders:
  global: [./skills]
  workspaces:
    "slack:T0123": [./skills-acme, /srv/skills]
`;

function recordingLogger(): LoggerPort & { messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (message) => messages.push(message) };
}

/** The ConfigError `text` raises; fails the test if it parses or throws anything else. */
function configErrorOf(text: string): ConfigError {
  try {
    parseConfig(text, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected a ConfigError for:\n${text}`);
}

describe("parseConfig", () => {
  it("reads every section of the documented example", () => {
    const config = parseConfig(EXAMPLE, FILE);
    expect(config).toEqual({
      tools: { web_search: true, code_run: false, "mcp:github": true, "mcp:filesystem": false },
      toolsets: {
        ...BUILTIN_TOOLSETS,
        research: { tools: ["web_search", "fetch_url", "mcp:*"], includes: [] },
        triage: { tools: ["mcp:github"], includes: ["research"] },
      },
      agent: { mode: "discover", toolset: "research", essential: ["current_time", "recall"] },
      skills: { "meeting-notes": false },
      skillFolders: {
        global: ["./skills"],
        workspaces: { "slack:T0123": ["./skills-acme", "/srv/skills"] },
      },
      permissions: { owners: [], admins: [], conversation: "anyone" },
      approvals: DEFAULT_APPROVALS,
      access: DEFAULT_ACCESS,
      limits: DEFAULT_LIMITS,
      plugins: [],
      agents: [],
      bindings: [],
      slack: { session: "thread", channels: {}, answerBots: false, streaming: "native" },
      discord: DEFAULT_DISCORD,
      telegram: DEFAULT_TELEGRAM,
      memory: DEFAULT_MEMORY,
      reminders: DEFAULT_REMINDERS,
      schedules: [],
      hooks: [],
      web: DEFAULT_WEB,
      mcp: DEFAULT_MCP,
      model: { ...DEFAULT_MODEL_LIMITS, vision: false },
      attachments: DEFAULT_ATTACHMENTS,
      transcription: DEFAULT_TRANSCRIPTION,
      redis: DEFAULT_REDIS,
      queue: DEFAULT_QUEUE,
      models: DEFAULT_MODELS,
      budgets: DEFAULT_BUDGETS,
      telemetry: DEFAULT_TELEMETRY,
      console: DEFAULT_CONSOLE,
    });
  });

  it("reads an empty file, a comment-only file and empty sections as the empty config", () => {
    expect(parseConfig("", FILE)).toEqual(EMPTY_CONFIG);
    expect(parseConfig("# nothing yet\n", FILE)).toEqual(EMPTY_CONFIG);
    expect(parseConfig("tools:\ntoolsets:\nagent:\nskills:\nskill_folders:\n", FILE)).toEqual(
      EMPTY_CONFIG,
    );
  });

  it("flattens the nested mcp map into mcp:<server> keys", () => {
    const config = parseConfig("tools:\n  mcp:\n    github: on\n    filesystem: off\n", FILE);
    expect(config.tools).toEqual({ "mcp:github": true, "mcp:filesystem": false });
  });

  it("reads a plain mcp switch as the aggregate key and all as the master key", () => {
    const config = parseConfig("tools:\n  mcp: false\n  all: off\n  mcp:slack: on\n", FILE);
    expect(config.tools).toEqual({ mcp: false, all: false, "mcp:slack": true });
  });

  it("reads ask, in any case, for a tool, a server and the aggregate mcp key", () => {
    const config = parseConfig(
      "tools:\n  send_message: ask\n  fetch_url: ASK\n  mcp: { github: Ask, filesystem: on }\n",
      FILE,
    );
    expect(config.tools).toEqual({
      send_message: "ask",
      fetch_url: "ask",
      "mcp:github": "ask",
      "mcp:filesystem": true,
    });
    expect(parseConfig("tools:\n  mcp: ask\n  all: on\n", FILE).tools).toEqual({
      mcp: "ask",
      all: true,
    });
    const twice = configErrorOf("tools:\n  mcp:github: ask\n  mcp: { github: on }\n");
    expect(twice.message).toContain(
      "tools.mcp:github: sets mcp:github ask, but tools.mcp.github sets it on. Keep one of the two.",
    );
  });

  it("rejects a server set one way flat and the other way nested", () => {
    const error = configErrorOf("tools:\n  mcp:github: off\n  mcp: { github: on }\n");
    expect(error.message).toMatch(/mcp:github/);
    expect(error.message).toMatch(/Keep one of the two/);
  });

  it("reads on/off/true/false in any case, as strings or YAML booleans", () => {
    const word = fc
      .tuple(
        fc.constantFrom("on", "off", "true", "false"),
        fc.array(fc.boolean(), { maxLength: 5 }),
      )
      .map(([w, upper]) => [...w].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(""));
    fc.assert(
      fc.property(word, fc.boolean(), (spelled, quoted) => {
        const value = quoted ? JSON.stringify(spelled) : spelled;
        const config = parseConfig(
          `tools:\n  web_search: ${value}\nskills:\n  notes: ${value}\n`,
          FILE,
        );
        const expected = ["on", "true"].includes(spelled.toLowerCase());
        expect(config.tools.web_search).toBe(expected);
        expect(config.skills.notes).toBe(expected);
      }),
    );
  });

  it("reads a toolset list as its tools and a toolset map as tools plus includes", () => {
    const config = parseConfig(
      "toolsets:\n  a: [web_search]\n  b:\n    includes: [a]\n  c: { tools: [x] }\n",
      FILE,
    );
    expect(config.toolsets.a).toEqual({ tools: ["web_search"], includes: [] });
    expect(config.toolsets.b).toEqual({ tools: [], includes: ["a"] });
    expect(config.toolsets.c).toEqual({ tools: ["x"], includes: [] });
  });

  it("reads skill folders as a list of global folders or a map", () => {
    expect(parseConfig("skill_folders: ./skills\n", FILE).skillFolders).toEqual({
      global: ["./skills"],
      workspaces: {},
    });
    expect(parseConfig("skill_folders: [a, b]\n", FILE).skillFolders.global).toEqual(["a", "b"]);
    const text = 'skill_folders:\n  workspaces:\n    "discord:81234": ./guild\n';
    expect(parseConfig(text, FILE).skillFolders).toEqual({
      global: [],
      workspaces: { "discord:81234": ["./guild"] },
    });
  });

  it("reads mode aliases through the load-mode parser", () => {
    expect(parseConfig("agent:\n  mode: omp\n", FILE).agent.mode).toBe("discover");
    expect(parseConfig("agent:\n  mode: PI\n", FILE).agent.mode).toBe("minimal");
  });

  it("reports unknown top-level sections as warnings, not errors", () => {
    const logger = recordingLogger();
    const text = "voice:\n  token: x\ntools:\n  web_search: on\nllm: gpt\n";
    const config = parseConfig(text, FILE, logger);
    expect(config.tools).toEqual({ web_search: true });
    expect(logger.messages).toEqual([
      'switchyard.yaml:1: unknown section "voice" is ignored. Known sections: access, agent, agents, approvals, attachments, bindings, budgets, console, discord, hooks, limits, mcp, memory, model, models, permissions, plugins, queue, redis, reminders, schedules, skill_folders, skills, slack, telegram, telemetry, tools, toolsets, transcription, web.',
      'switchyard.yaml:5: unknown section "llm" is ignored. Known sections: access, agent, agents, approvals, attachments, bindings, budgets, console, discord, hooks, limits, mcp, memory, model, models, permissions, plugins, queue, redis, reminders, schedules, skill_folders, skills, slack, telegram, telemetry, tools, toolsets, transcription, web.',
    ]);
    expect(readConfig(text, FILE).warnings.map((w) => [w.key, w.line])).toEqual([
      ["voice", 1],
      ["llm", 5],
    ]);
  });

  it("returns a config nobody can change by accident", () => {
    const config = parseConfig(EXAMPLE, FILE);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.tools)).toBe(true);
  });
});

describe("ConfigError", () => {
  // [what, text, key, line, part of the message]
  const cases: [string, string, string, number, string][] = [
    [
      "a value that is not a switch",
      "# global switches\ntools:\n  code_run: off\n  web_search: maybe\n",
      "tools.web_search",
      4,
      '"maybe" is not on/off/ask/true/false. Write web_search: on, web_search: off or web_search: ask.',
    ],
    [
      "a bad switch inside the mcp map",
      "tools:\n  mcp:\n    github: on\n    filesystem: sometimes\n",
      "tools.mcp.filesystem",
      4,
      "Write filesystem: on, filesystem: off or filesystem: ask.",
    ],
    ["a bad mcp switch", "tools:\n  mcp: 3\n", "tools.mcp", 2, "Write mcp: off"],
    ["a section that is a list", "skills: {}\ntools: [web_search]\n", "tools", 2, "expected a map"],
    [
      "a malformed tool key",
      "tools:\n  web search: on\n",
      "tools.web search",
      2,
      "is not a tool id",
    ],
    ["mcp:* used as a key", "tools:\n  mcp:*: off\n", "tools.mcp:*", 2, "write mcp: off"],
    [
      "an unknown mode",
      "tools:\n  web_search: on\nagent:\n  toolset: default\n  mode: turbo\n",
      "agent.mode",
      5,
      'Unknown load mode "turbo". Use one of: full, default, minimal (alias pi), discover (alias omp).',
    ],
    ["a misspelled agent key", "agent:\n  mdoe: full\n", "agent.mdoe", 2, 'unknown key "mdoe"'],
    [
      "an undefined default toolset",
      "toolsets:\n  research: [web_search]\nagent:\n  toolset: reserch\n",
      "agent.toolset",
      4,
      "Define toolsets.reserch, or use one of: default, full, research.",
    ],
    [
      "a malformed essential id",
      "agent:\n  essential:\n    - recall\n    - what time\n",
      "agent.essential[1]",
      4,
      "is not a tool id",
    ],
    [
      "an unknown include",
      "toolsets:\n  a: [x]\n  b:\n    tools: [y]\n    includes: [a, c]\n",
      "toolsets.b.includes[1]",
      5,
      'Toolset "b" includes "c", which is not defined.',
    ],
    [
      "a redefined full toolset",
      "toolsets:\n  mine: [x]\n  full: [y]\n",
      "toolsets.full",
      3,
      "cannot be redefined",
    ],
    [
      "a bad toolset entry",
      "toolsets:\n  r:\n    - web_search\n    - web search\n",
      "toolsets.r[1]",
      4,
      "is not a tool id, a family",
    ],
    [
      "a misspelled toolset key",
      "toolsets:\n  r: { tool: [x] }\n",
      "toolsets.r.tool",
      2,
      'unknown key "tool"',
    ],
    [
      "a scalar toolset",
      "toolsets:\n  r: web_search\n",
      "toolsets.r",
      2,
      "expected a list of tools",
    ],
    [
      "a bad skill switch",
      "skills:\n\n  meeting-notes: nope\n",
      "skills.meeting-notes",
      3,
      "not on/off",
    ],
    [
      "two spellings of one skill",
      "skills:\n  Standup: on\n  standup: off\n",
      "skills.standup",
      3,
      "names the same skill as skills.Standup (skill names ignore case)",
    ],
    [
      "a skill folder that is not a path",
      "skill_folders:\n  global:\n    - ./skills\n    - 3\n",
      "skill_folders.global[1]",
      4,
      "expected a folder path, found 3.",
    ],
    [
      "a bad folder in the shorthand list",
      "skill_folders: [./skills, '']\n",
      "skill_folders[1]",
      1,
      '"" is not a folder path.',
    ],
    [
      "a misspelled skill_folders key",
      "skill_folders:\n  workspace: {}\n",
      "skill_folders.workspace",
      2,
      "skill_folders takes global: and workspaces:.",
    ],
    [
      "a workspace without its platform",
      "skill_folders:\n  workspaces:\n    T0123: [./acme]\n",
      "skill_folders.workspaces.T0123",
      3,
      'Write <platform>:<workspace id>, e.g. "slack:T0123"',
    ],
    [
      "skill folders that are a number",
      "skill_folders: 3\n",
      "skill_folders",
      1,
      "expected a list of folders or a map with global: and workspaces:",
    ],
    ["a file that is a list", "- tools\n", "", 1, "expected a map of sections"],
  ];

  it.each(cases)("names file, key and line for %s", (_, text, key, line, fragment) => {
    const error = configErrorOf(text);
    expect(error.file).toBe(FILE);
    expect(error.key).toBe(key);
    expect(error.line).toBe(line);
    expect(error.message).toContain(fragment);
    expect(error.message.startsWith(`${FILE}:${line}: ${key === "" ? "" : `${key}: `}`)).toBe(true);
  });

  it("words the documented example exactly", () => {
    const error = configErrorOf("tools:\n  code_run: off\n\n  web_search: maybe\n");
    expect(error.message).toBe(
      'switchyard.yaml:4: tools.web_search: "maybe" is not on/off/ask/true/false. Write web_search: on, web_search: off or web_search: ask.',
    );
  });

  it("rejects toolsets that include each other, naming the cycle and where it starts", () => {
    const error = configErrorOf(
      "toolsets:\n  research: [web_search]\n  triage:\n    includes: [research, review]\n  review:\n    includes: [triage]\n",
    );
    expect(error.key).toBe("toolsets.triage.includes[1]");
    expect(error.line).toBe(4);
    expect(error.message).toContain("cycle: review -> triage -> review");
  });

  it("turns YAML syntax errors into ConfigErrors with the line", () => {
    const duplicate = configErrorOf("tools:\n  web_search: on\n  web_search: off\n");
    expect(duplicate.line).toBe(3);
    expect(duplicate.message).toBe(
      "switchyard.yaml:3: YAML syntax error: a key appears twice in the same map. Keep one of them.",
    );
    const unclosed = configErrorOf("tools:\n  web_search: on\ntoolsets:\n  r: [a, b\nagent: {}\n");
    expect(unclosed.message).toMatch(/^switchyard\.yaml:\d+: YAML syntax error: /);
    expect(unclosed.line).toBeGreaterThanOrEqual(4);
    expect(configErrorOf("tools:\n\tweb_search: on\n").line).toBe(2);
  });

  it("turns an alias without an anchor into a ConfigError", () => {
    const error = configErrorOf("tools:\n  web_search: on\n  code_run: *missing\n");
    expect(error.line).toBe(3);
    expect(error.message).toContain("Define each anchor");
  });

  it("reports the first problem in the file when there are several", () => {
    const error = configErrorOf("skills:\n  a: nope\ntools:\n  b: nope\n");
    expect(error.key).toBe("skills.a");
  });
});

describe("globalLayer", () => {
  it("carries the global keys, toolset and mode", () => {
    expect(globalLayer(parseConfig(EXAMPLE, FILE))).toEqual({
      keys: { web_search: true, code_run: false, "mcp:github": true, "mcp:filesystem": false },
      toolset: "research",
      mode: "discover",
    });
    expect(globalLayer(EMPTY_CONFIG)).toEqual({ keys: {} });
  });
});

describe("reloadConfig", () => {
  const good: SwitchyardConfig = parseConfig(EXAMPLE, FILE);

  it("keeps the last good config when the file breaks, and warns once", () => {
    const logger = recordingLogger();
    const snapshot = structuredClone(good);
    const broken = EXAMPLE.replace("code_run: off", "code_run: perhaps");
    const result = reloadConfig(good, broken, FILE, logger);
    expect(result.ok).toBe(false);
    expect(result.config).toBe(good);
    expect(result.config).toEqual(snapshot);
    expect(result.error).toBeInstanceOf(ConfigError);
    expect(result.error?.line).toBe(3);
    expect(logger.messages).toEqual([`${result.error?.message} Keeping the last good config.`]);
    expect(logger.messages[0]).toContain("switchyard.yaml:3: tools.code_run:");
  });

  it("keeps the last good config when a whole section breaks", () => {
    const logger = recordingLogger();
    const result = reloadConfig(good, "tools:\n  - web_search\n", FILE, logger);
    expect(result.config).toBe(good);
    expect(logger.messages).toHaveLength(1);
    expect(logger.messages[0]).toMatch(
      /^switchyard\.yaml:1: tools: .*Keeping the last good config\.$/,
    );
  });

  it("replaces the config when the new file is good", () => {
    const logger = recordingLogger();
    const result = reloadConfig(good, "tools:\n  web_search: off\n", FILE, logger);
    expect(result.ok).toBe(true);
    expect(result.error).toBeUndefined();
    expect(result.config.tools).toEqual({ web_search: false });
    expect(logger.messages).toEqual([]);
  });
});

describe("hostile files", () => {
  it.each([
    ["block sequences", "  - ".repeat(3000)],
    ["flow brackets", "[".repeat(5000)],
    ["flow maps", "{a: ".repeat(2000)],
  ])("refuses text nested thousands deep (%s) with a ConfigError, not a crash", (_, text) => {
    expect(() => parseConfig(text, "deep.yaml")).toThrow(ConfigError);
    expect(() => parseConfig(text, "deep.yaml")).toThrow(/nests deeper than 64 levels/);
  });
});

describe("the permissions section", () => {
  it("reads owners, admins and who may change a conversation, with safe defaults", () => {
    expect(parseConfig("", "p.yaml").permissions).toEqual({
      owners: [],
      admins: [],
      conversation: "anyone",
    });
    const config = parseConfig(
      "permissions:\n  owners: [slack:U0OWNER]\n  admins: [slack:U0ADMIN, discord:1234]\n  conversation: admins\n",
      "p.yaml",
    );
    expect(config.permissions).toEqual({
      owners: ["slack:U0OWNER"],
      admins: ["slack:U0ADMIN", "discord:1234"],
      conversation: "admins",
    });
  });

  it("refuses an id without its platform, naming the line and the fix", () => {
    expect(() =>
      parseConfig("permissions:\n  owners: [slack:U1]\n  admins: [U123]\n", "p.yaml"),
    ).toThrow(
      /^p\.yaml:3: permissions\.admins\[0\]: "U123" is not a platform-qualified user id\. Write the platform first/,
    );
  });

  it("refuses an unknown policy word", () => {
    expect(() => parseConfig("permissions:\n  conversation: everyone\n", "p.yaml")).toThrow(
      /p\.yaml:2: permissions\.conversation: expected anyone or admins/,
    );
  });
});

describe("the slack section", () => {
  it("reads the session scope per channel and whether to answer bots, with defaults", () => {
    expect(parseConfig("", "s.yaml").slack).toEqual({
      session: "thread",
      channels: {},
      answerBots: false,
      streaming: "native",
    });
    expect(
      parseConfig(
        "slack:\n  session: channel\n  channels:\n    C0123: { session: thread }\n  answer_bots: true\n",
        "s.yaml",
      ).slack,
    ).toEqual({
      session: "channel",
      channels: { C0123: { session: "thread" } },
      answerBots: true,
      streaming: "native",
    });
  });

  it("chooses native or edit streaming, and names a wrong value", () => {
    expect(parseConfig("slack:\n  streaming: edit\n", "s.yaml").slack.streaming).toBe("edit");
    expect(() => parseConfig("slack:\n  streaming: live\n", "s.yaml")).toThrow(
      /expected native or edit, found "live"/,
    );
  });

  it("names a channel given by name instead of id, and keeps tokens out of the file", () => {
    expect(() =>
      parseConfig("slack:\n  channels:\n    general: { session: thread }\n", "s.yaml"),
    ).toThrow(/^s\.yaml:3: slack\.channels\.general: "general" is not a Slack channel id/);
    expect(() => parseConfig("slack:\n  bot_token: xoxb-1\n", "s.yaml")).toThrow(
      /tokens stay in the environment: SLACK_BOT_TOKEN/,
    );
  });
});
