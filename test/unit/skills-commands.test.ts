import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Actor, CommandPolicy } from "../../src/core/commands/index.ts";
import {
  defineSkillTool,
  formatSkillsCommand,
  parseSkillInvocation,
  parseSkillsCommand,
  planSkillInvocation,
  planSkillsCommand,
  planSkillsText,
  reloadReply,
  renderSkillsText,
  resolveSkills,
  SKILL_SCOPES,
  SKILLS_VERBS,
  type SkillsCommand,
  SkillsCommandError,
  type SkillsPlan,
  type SkillsPlanContext,
  type SkillToggleStack,
  skillToolAnswer,
  skillToolResult,
} from "../../src/core/skills/index.ts";
import type { ToolContext } from "../../src/core/tools/tool.ts";
import { skill, source } from "../support/skills.ts";

const member: Actor = { id: "U_MEMBER", isPlatformAdmin: false };
const admin: Actor = { id: "U_ADMIN", isPlatformAdmin: true };
const owner: Actor = { id: "U_OWNER", isPlatformAdmin: false };
const policy: CommandPolicy = { owners: ["U_OWNER"], admins: [], conversation: "anyone" };

const sources = [
  source("builtin", [skill("meeting-notes"), skill("bot-guide")]),
  source("workspace", [
    skill("meeting-notes", "workspace", { body: "Our format.", files: ["template.md"] }),
    skill("Standup", "workspace"),
  ]),
];

function ctxOf(actor: Actor, toggles: SkillToggleStack = {}): SkillsPlanContext {
  return { actor, policy, resolution: resolveSkills(sources, toggles) };
}

function parseError(text: string): SkillsCommandError {
  try {
    parseSkillsCommand(text);
  } catch (error) {
    if (error instanceof SkillsCommandError) return error;
    throw error;
  }
  throw new Error(`expected a SkillsCommandError for ${text}`);
}

function replyOf(plan: SkillsPlan): string {
  if (plan.kind === "change" || plan.kind === "refused") return plan.reply;
  if (plan.kind === "reply") return renderSkillsText(plan.view);
  return "(reload)";
}

describe("parseSkillsCommand", () => {
  it.each<[string, SkillsCommand]>([
    ["", { verb: "list" }],
    ["/skills", { verb: "list" }],
    ["/skills@SwitchyardBot LIST", { verb: "list" }],
    ["on Meeting-Notes", { verb: "on", name: "Meeting-Notes", scope: "channel" }],
    ["!skills off `standup` Workspace", { verb: "off", name: "standup", scope: "workspace" }],
    ["reset", { verb: "reset", name: null, scope: "channel" }],
    ["reset global", { verb: "reset", name: null, scope: "global" }],
    ["reset all workspace", { verb: "reset", name: null, scope: "workspace" }],
    ["reset channel channel", { verb: "reset", name: "channel", scope: "channel" }],
    ["reset standup", { verb: "reset", name: "standup", scope: "channel" }],
    ["why bot-guide", { verb: "why", name: "bot-guide" }],
    ["reload", { verb: "reload" }],
    ["help on", { verb: "help", topic: "on" }],
  ])("reads %j", (text, command) => {
    expect(parseSkillsCommand(text)).toEqual(command);
  });

  it.each([
    ["off standup conversation", "Skills have no conversation scope"],
    [
      "off standup chanel",
      'Unknown scope "chanel". Use channel (the default), workspace or global',
    ],
    ["off", "Missing the skill to switch off: /skills off <skill> [scope]"],
    ["on /standup", 'Write the name without "/", e.g. standup.'],
    ["enable standup", 'Did you mean "on"?'],
    ["standup off", "put off first: /skills off standup."],
    ["why a b", 'Unexpected "b"'],
  ])("explains what is wrong with %j", (text, problem) => {
    expect(parseError(text).message).toContain(problem);
  });

  it("gives back every command it formats", () => {
    const name = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,8}$/),
      fc.constantFrom("channel", "Global", "list"),
    );
    const scope = fc.constantFrom(...SKILL_SCOPES);
    const command: fc.Arbitrary<SkillsCommand> = fc.oneof(
      fc.constant({ verb: "list" as const }),
      fc.constant({ verb: "reload" as const }),
      fc.record({
        verb: fc.constant("help" as const),
        topic: fc.constantFrom(null, ...SKILLS_VERBS),
      }),
      fc.record({ verb: fc.constantFrom("on" as const, "off" as const), name, scope }),
      fc.record({
        verb: fc.constant("reset" as const),
        name: fc.option(name.filter((n) => n.toLowerCase() !== "all")),
        scope,
      }),
      fc.record({ verb: fc.constant("why" as const), name }),
    );
    fc.assert(
      fc.property(command, (c) => {
        expect(parseSkillsCommand(formatSkillsCommand(c))).toEqual(c);
      }),
    );
  });

  it("reads any text as a command or a SkillsCommandError, nothing else", () => {
    const words = fc.constantFrom(
      ...SKILLS_VERBS,
      ...SKILL_SCOPES,
      "conversation",
      "runtime",
      "all",
      "standup",
      "/skills",
      "`x`",
      "__proto__",
      "é",
      "",
    );
    const text = fc.oneof(
      fc.string(),
      fc.array(words, { maxLength: 5 }).map((w) => w.join(" ")),
    );
    fc.assert(
      fc.property(text, (t) => {
        try {
          parseSkillsCommand(t);
        } catch (error) {
          expect(error).toBeInstanceOf(SkillsCommandError);
        }
        const plan = planSkillsText(t, ctxOf(owner));
        expect(["change", "reload", "reply", "refused"]).toContain(plan.kind);
      }),
    );
  });
});

describe("planSkillsCommand", () => {
  it("switches a skill in the channel by default, writing its lowercase key", () => {
    const plan = planSkillsText("/skills off Standup", ctxOf(admin));
    expect(plan).toEqual({
      kind: "change",
      scope: "channel",
      changes: [{ name: "standup", value: "off" }],
      reply:
        "Standup is now off in this channel. This applies from the next message; the current answer is unaffected.",
    });
  });

  it("clears other spellings of the name at the same scope", () => {
    const plan = planSkillsText("on standup", ctxOf(admin, { channel: { STANDUP: false } }));
    expect(plan.kind === "change" && plan.changes).toEqual([
      { name: "standup", value: "on" },
      { name: "STANDUP", value: "follow" },
    ]);
  });

  it("refuses a member with the same permission rule as /tools, never offering a conversation scope", () => {
    const plan = planSkillsText("off standup", ctxOf(member));
    expect(plan).toEqual({
      kind: "refused",
      reply:
        "Only workspace admins or the bot's configured admins can change the channel scope. Ask one of them.",
    });
  });

  it("points an admin refused the global scope at the workspace scope", () => {
    const plan = planSkillsText("off standup global", ctxOf(admin));
    expect(replyOf(plan)).toBe(
      "Only the bot's owners (listed in the config file) can change the global scope. Ask one of them, or use the workspace scope: /skills off standup workspace",
    );
    expect(planSkillsText("off standup global", ctxOf(owner)).kind).toBe("change");
  });

  it("says when a deeper scope still wins", () => {
    const plan = planSkillsText(
      "on standup workspace",
      ctxOf(admin, { channel: { standup: false } }),
    );
    expect(replyOf(plan)).toContain(
      "But the channel scope has it off, which wins here, so it stays off in this channel.",
    );
  });

  it("refuses an unknown skill with a suggestion", () => {
    expect(replyOf(planSkillsText("off standpu", ctxOf(admin)))).toBe(
      'There is no skill "standpu". Did you mean Standup? /skills lists the skills this bot has.',
    );
  });

  it("resets one skill and says what decides now", () => {
    const ctx = ctxOf(admin, { channel: { standup: false }, workspace: { standup: true } });
    const plan = planSkillsText("reset Standup", ctx);
    expect(plan.kind === "change" && plan.changes).toEqual([{ name: "standup", value: "follow" }]);
    expect(replyOf(plan)).toContain(
      "Standup is reset in this channel: it is on, decided by the workspace scope.",
    );
  });

  it("resets every skill setting at a scope, even one for a skill that is gone", () => {
    const ctx = ctxOf(owner, {
      global: { gone: false, standup: true },
      config: { standup: false },
    });
    const plan = planSkillsText("reset global", ctx);
    expect(plan.kind === "change" && plan.changes).toEqual([
      { name: "gone", value: "follow" },
      { name: "standup", value: "follow" },
    ]);
    expect(replyOf(plan)).toContain("The config file's skills: section still applies");
    expect(planSkillsText("reset gone global", ctx).kind).toBe("change");
  });

  it("lists N of M skills with state, source and shadowing", () => {
    const text = replyOf(planSkillsText("", ctxOf(member, { channel: { "bot-guide": false } })));
    expect(text.split("\n")[0]).toBe("2 of 3 skills available");
    expect(text).toContain("meeting-notes  on · workspace skill, shadows the built-in skill");
    expect(text).toContain("bot-guide      off (disabled by the channel scope) · built-in skill");
  });

  it("explains a skill's state and what it shadows", () => {
    const text = replyOf(
      planSkillsText(
        "why MEETING-NOTES",
        ctxOf(member, { config: { "meeting-notes": false }, workspace: { "meeting-notes": true } }),
      ),
    );
    expect(text).toBe(
      [
        "meeting-notes: on, decided by the workspace scope.",
        "  channel: —",
        "  workspace: on  <- decides",
        "  global: —",
        "  global (config file): off",
        "  used: workspace skill meeting-notes (/srv/workspace/meeting-notes)",
        "  shadowed: built-in skill meeting-notes shadowed by workspace skill meeting-notes (/srv/workspace/meeting-notes)",
      ].join("\n"),
    );
  });

  it("asks the shell to reload, and words what changed", () => {
    expect(planSkillsText("reload", ctxOf(member))).toEqual({ kind: "reload" });
    const before = resolveSkills(sources);
    const after = resolveSkills([
      source("builtin", [skill("meeting-notes"), skill("bot-guide", "builtin", { body: "new" })]),
      source("global", [skill("retro", "global")]),
    ]);
    expect(reloadReply(before, after, ["skills/x/SKILL.md:1: bad."])).toBe(
      "Skills reloaded: 3 of 3 available. New: retro. Gone: Standup. Changed: bot-guide, meeting-notes. Skipped 1 SKILL.md file: skills/x/SKILL.md:1: bad.",
    );
  });

  it("shows help with the /skill usage", () => {
    const text = replyOf(planSkillsCommand({ verb: "help", topic: null }, ctxOf(member)));
    expect(text).toContain("/skill <name> [request]");
    expect(text).toContain("Scopes: channel (the default), workspace, global.");
  });
});

describe("/skill <name> [request]", () => {
  it("reads the name and keeps the request as written", () => {
    expect(parseSkillInvocation("/skill meeting-notes  turn this into\nnotes ")).toEqual({
      name: "meeting-notes",
      request: "turn this into\nnotes",
    });
    expect(() => parseSkillInvocation("/skill")).toThrow(SkillsCommandError);
  });

  it("injects the body of an enabled skill into the turn", () => {
    const plan = planSkillInvocation("/skill Meeting-Notes summarize", resolveSkills(sources));
    expect(plan.kind).toBe("invoke");
    if (plan.kind !== "invoke") return;
    expect(plan.skill.body).toBe("Our format.");
    expect(plan.text).toContain('<skill name="meeting-notes">\nOur format.');
    expect(plan.text.endsWith("Request: summarize")).toBe(true);
  });

  it("answers the disabled message naming the deciding scope", () => {
    const resolution = resolveSkills(sources, { workspace: { standup: false } });
    expect(planSkillInvocation("/skill standup", resolution)).toEqual({
      kind: "refused",
      reply: "Standup is disabled by the workspace scope — enable with /skills on Standup",
    });
  });

  it("lists the enabled skills when no name is given", () => {
    const plan = planSkillInvocation(
      "/skill",
      resolveSkills(sources, { channel: { standup: false } }),
    );
    expect(plan).toEqual({
      kind: "refused",
      reply: "Missing the skill to use: /skill <name> [request] Skills: bot-guide, meeting-notes.",
    });
  });
});

describe("the skill tool", () => {
  const ctx: ToolContext = {
    signal: new AbortController().signal,
    platform: "console",
    workspace: "w",
    channel: "c",
    conversation: "c",
    user: "u",
  };

  it("returns the body and the files beside it", () => {
    const notes = skill("meeting-notes", "workspace", {
      body: "Do this.",
      files: ["a.md", "t/b.md"],
    });
    expect(skillToolAnswer(notes)).toBe(
      "Do this.\n\nFiles beside it (in /srv/workspace/meeting-notes): a.md, t/b.md.",
    );
    expect(skillToolAnswer(skill("bot-guide"))).toBe(
      "# bot-guide\nStep one.\n\nFiles beside it: none.",
    );
  });

  it("answers unknown and disabled names with what the model can do", () => {
    const resolution = resolveSkills(sources, { channel: { standup: false } });
    expect(skillToolResult(resolution, "nope")).toBe(
      'There is no skill named "nope". The skills you can load: bot-guide, meeting-notes.',
    );
    expect(skillToolResult(resolution, "standup")).toBe(
      "Standup is disabled by the channel scope — enable with /skills on Standup. Its instructions are not available here; tell the person if they asked for it, and do without it.",
    );
  });

  it("resolves the caller's channel when it runs", async () => {
    const tool = defineSkillTool((c) =>
      resolveSkills(sources, { channel: c.channel === "c" ? { "meeting-notes": false } : {} }),
    );
    expect(tool.id).toBe("skill");
    expect(await tool.execute({ name: "meeting-notes" }, ctx)).toContain(
      "is disabled by the channel scope",
    );
    expect(await tool.execute({ name: "MEETING-NOTES" }, { ...ctx, channel: "d" })).toContain(
      "Our format.",
    );
  });
});
