import fc from "fast-check";
import type { Api } from "grammy";
import { describe, expect, it } from "vitest";
import { resolveSkills } from "../../src/core/skills/index.ts";
import { ChatPacer } from "../../src/platforms/telegram/chat-pacer.ts";
import {
  CommandMenu,
  menuCommands,
  RESERVED_COMMANDS,
  skillCommandName,
  skillForCommand,
} from "../../src/platforms/telegram/menu.ts";
import type { ContractSources } from "../../src/turn/contract.ts";
import { skill, source } from "../support/skills.ts";

const skillName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);

describe("the command menu", () => {
  it("lists the base commands, then each enabled skill under a Telegram command name", () => {
    const resolution = resolveSkills(
      [source("builtin", [skill("meeting-notes"), skill("bot-guide"), skill("Triage.Bugs")])],
      { channel: { "bot-guide": false } },
    );
    expect(menuCommands(resolution)).toEqual([
      { command: "help", description: "What I can do here, and who the admins are" },
      {
        command: "new",
        description: "Start a fresh conversation (/new --all also forgets tool choices)",
      },
      { command: "stop", description: "Stop what I'm doing here" },
      { command: "usage", description: "Tokens and turns used here today and this month" },
      { command: "model", description: "The model I use here (admins can switch it)" },
      { command: "queue", description: "How I take messages sent while I work" },
      { command: "agent", description: "Which agent answers here (admins can switch it)" },
      {
        command: "approve",
        description: "Let a tool call that waits run: /approve <id> [conversation]",
      },
      { command: "deny", description: "Refuse a tool call that waits: /deny <id>" },
      { command: "tools", description: "See the bot's tools here and switch them on or off" },
      { command: "skills", description: "See the bot's skills here and switch them on or off" },
      { command: "skill", description: "Use a skill for one message: /skill <name> [request]" },
      {
        command: "schedule",
        description: 'Prompts I run on a timing: /schedule add "<when>" <prompt>, /schedule list',
      },
      { command: "meeting_notes", description: "Does meeting-notes things." },
      { command: "triage_bugs", description: "Does Triage.Bugs things." },
    ]);
    expect(skillForCommand(resolution, "bot_guide")?.name).toBe("bot-guide");
    expect(skillForCommand(resolution, "nope")).toBeUndefined();
  });

  it("gives names Telegram accepts, never a reserved one, and menus of unique commands within its limits", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(skillName, { maxLength: 120, selector: (n) => n.toLowerCase() }),
        (names) => {
          for (const name of names) {
            const command = skillCommandName(name);
            if (command !== undefined) {
              expect(command).toMatch(/^[a-z0-9_]{1,32}$/);
              expect(RESERVED_COMMANDS.has(command)).toBe(false);
            }
          }
          const menu = menuCommands(
            resolveSkills([
              source(
                "global",
                names.map((n) => skill(n, "global")),
              ),
            ]),
          );
          expect(menu.length).toBeLessThanOrEqual(100);
          expect(new Set(menu.map((c) => c.command)).size).toBe(menu.length);
          for (const c of menu) {
            expect(c.description.length).toBeGreaterThan(0);
            expect(c.description.length).toBeLessThanOrEqual(256);
          }
        },
      ),
      { numRuns: 100 },
    );
    expect(skillCommandName("tools")).toBeUndefined();
    expect(skillCommandName("Start")).toBeUndefined();
  });
});

describe("CommandMenu", () => {
  it("sends one menu's sets one after another, so an older set never lands after a newer one", async () => {
    let skills = resolveSkills([source("builtin", [skill("meeting-notes")])], {});
    const sent: string[][] = [];
    let release = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const api = {
      setMyCommands: async (commands: { command: string }[]) => {
        calls += 1;
        if (calls === 1) await slow;
        sent.push(commands.map((c) => c.command));
        return true;
      },
    } as unknown as Api;
    const menu = new CommandMenu(() => api, {} as ContractSources);
    menu.skillsOf = async () => skills;
    const first = menu.refresh();
    while (calls === 0) await new Promise((resolve) => setImmediate(resolve));
    // A skill comes while the first set waits on Telegram; its own refresh follows.
    skills = resolveSkills([source("builtin", [skill("meeting-notes"), skill("bot-guide")])], {});
    const second = menu.refresh();
    release();
    await Promise.all([first, second]);
    expect(sent).toHaveLength(2);
    expect(sent.at(-1)).toContain("bot_guide");
  });
});

describe("ChatPacer", () => {
  it("spaces edits in one chat an interval apart, queueing callers, and leaves other chats alone", async () => {
    let now = 0;
    const slept: number[] = [];
    const pacer = new ChatPacer(
      1_000,
      () => now,
      async (ms) => {
        slept.push(ms);
      },
    );
    await Promise.all([pacer.wait("a"), pacer.wait("a"), pacer.wait("a"), pacer.wait("b")]);
    expect(slept).toEqual([1_000, 2_000]);
    now = 5_000;
    await pacer.wait("a");
    expect(slept).toEqual([1_000, 2_000]);
  });

  it("lets the finished answer's edit go at once, and keeps the streaming edits after it an interval away", async () => {
    let now = 0;
    const slept: number[] = [];
    const pacer = new ChatPacer(
      1_000,
      () => now,
      async (ms) => {
        slept.push(ms);
      },
    );
    await pacer.wait("a");
    now = 200;
    // The final edit 200 ms after a streaming one: no wait, where wait() would sleep 800 ms.
    pacer.claim("a");
    expect(slept).toEqual([]);
    await pacer.wait("a");
    expect(slept).toEqual([1_000]);
  });
});
