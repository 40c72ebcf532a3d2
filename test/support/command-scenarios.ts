import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { z } from "zod";
import { dayPeriod } from "../../src/core/budget/usage.ts";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import {
  type ConversationAddress,
  INBOUND_TEXT_LIMIT,
  tooLongReply,
} from "../../src/core/conversation.ts";
import { skillInvocationText } from "../../src/core/skills/answers.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { type AnyTool, defineTool } from "../../src/core/tools/tool.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import type { StopTurn } from "../../src/ports/turn-control.ts";
import { unconfiguredProvider } from "../../src/providers/openai.ts";
import { type Switchyard, startSwitchyard } from "../../src/runtime/app.ts";
import { loadSkills, type SkillLibrary } from "../../src/runtime/skill-folders.ts";
import { until } from "./channels.ts";
import { bigTool, lookupTool, type Pipeline } from "./pipeline.ts";
import { testRedisFactory } from "./redis.ts";

/** Who types: a person with no admin rights, or one the config (or the platform) makes an admin. */
export type Persona = "member" | "admin";

/** One platform's bot on its fake, seen as a person in chat sees it. */
export interface CommandDriver {
  readonly pipe: Pipeline;
  /** The conversation a persona talks in (each has their own, except where a platform shares one). */
  address(who: Persona): ConversationAddress;
  /** Sends a line as the persona would type it on this platform (a mention where one is needed). */
  say(text: string, who?: Persona): Promise<void>;
  /** What the bot has shown the persona in their conversation, oldest first. */
  said(who?: Persona): string[];
  close(): Promise<void>;
}

/** What a platform's setup is given. */
export interface DriverOptions {
  /** The config file's text; `ADMIN` in it becomes the admin persona's qualified id. */
  readonly config: string;
  readonly tools?: AnyTool[];
  /** `/stop`'s port, when it must come from another process. */
  readonly stopTurn?: StopTurn;
  /** The skill library the ingress and the worker read, when a scenario uses skills. */
  readonly skills?: SkillLibrary;
}

export type StartDriver = (options: DriverOptions) => Promise<CommandDriver>;

/** A config of its text, with the admin persona's id put in. */
export function configOf(text: string, adminId: string): () => SwitchyardConfig {
  // These scenarios are about commands, not access: every DM is let in unless a scenario says otherwise.
  const withAccess = /^access:/m.test(text) ? text : `${text}\naccess:\n  dm: open\n`;
  const config = parseConfig(withAccess.replaceAll("ADMIN", adminId), "test.yaml");
  return () => config;
}

const MODELS = `
models:
  list:
    - name: fake-model
      price: { input: 0.4, cached: 0.1, output: 1.6 }
    - name: big-model
      capabilities: { vision: true }
permissions:
  admins: [ADMIN]
`;

/** The bot's line that matches, once it has said it. */
export function botSaid(driver: CommandDriver, pattern: RegExp, who: Persona = "member") {
  return until(() => driver.said(who).find((text) => pattern.test(text)));
}

const userAndAssistant = (body: { messages: { role: string; content: string }[] }) =>
  body.messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.content}`);

/** `/new`: the next model request carries no earlier messages. */
export async function newForgetsHistory(start: StartDriver, typed = "/new"): Promise<void> {
  const d = await start({ config: MODELS });
  try {
    d.pipe.fake.script({ content: "Noted: kumquat." }, { content: "I don't know any word." });
    await d.say("remember the word kumquat");
    await botSaid(d, /Noted: kumquat/);
    await d.say(typed);
    const reply = await botSaid(d, /Starting a fresh conversation/);
    expect(reply).toContain("Your tool and skill choices are kept");
    await d.say("what was the word?");
    await botSaid(d, /I don't know any word/);
    expect(d.pipe.fake.requests).toHaveLength(2);
    expect(userAndAssistant(d.pipe.fake.requests[1]?.body)).toEqual([
      expect.stringMatching(/^user: .*what was the word\?$/),
    ]);
  } finally {
    await d.close();
  }
}

/** `/usage`: the numbers are the fake model's reported usage, with the cached share and the cost. */
export async function usageMatchesTheModel(
  start: StartDriver,
  typed = "/usage",
  /** Where the one person at hand owns the bot (the console). */
  memberIsAdmin = false,
): Promise<void> {
  const d = await start({ config: MODELS });
  try {
    d.pipe.fake.script({
      content: "Hello!",
      usage: { prompt_tokens: 1_200, cached_tokens: 1_000, completion_tokens: 34 },
    });
    await d.say("hi");
    await botSaid(d, /Hello!/);
    await turnsCounted(d, "member", 1);
    await d.say(typed);
    const reply = await botSaid(d, /Usage in this conversation/);
    const line =
      "today: 1,234 tokens (prompt 1,200, cached 1,000, completion 34) in 1 turn, 83% cached";
    expect(reply).toContain(line);
    expect(reply).toContain(line.replace("today", "this month"));
    // 200 uncached x 0.4 + 1,000 cached x 0.1 + 34 x 1.6 per million tokens = $0.000234.
    expect(reply).toContain("Estimated cost: $0.0002 today, $0.0002 this month.");
    // The workspace's totals are for admins.
    if (memberIsAdmin) {
      expect(reply).toContain(`This workspace:\n${line}`);
      expect(reply).toContain("No daily token budget is set for the workspace");
    } else {
      expect(reply).not.toContain("This workspace");
    }
  } finally {
    await d.close();
  }
}

/** `/model`: an admin's switch reaches the next request's `model`; an unlisted name is refused with the list. */
export async function modelSwitchesTheRequest(
  start: StartDriver,
  withMember = true,
): Promise<void> {
  const d = await start({ config: MODELS });
  try {
    await d.say("/model", "admin");
    await botSaid(d, /Model here: fake-model \(the bot's default\)/, "admin");
    await d.say("/model gpt-9000", "admin");
    const refused = await botSaid(d, /gpt-9000 is not one of/, "admin");
    expect(refused).toContain("Choose one of: fake-model, big-model (vision).");
    await d.say("/model big-model", "admin");
    await botSaid(d, /This conversation uses big-model from my next turn/, "admin");
    d.pipe.fake.script({ content: "Answered by the big one." });
    await d.say("hello", "admin");
    await botSaid(d, /Answered by the big one/, "admin");
    expect(d.pipe.fake.requests.map((r) => r.body.model)).toEqual(["big-model"]);
    if (!withMember) return;
    // Someone who is not an admin sees the model but cannot switch it.
    await d.say("/model fake-model");
    await botSaid(d, /Only workspace admins or the bot's configured admins can switch the model/);
  } finally {
    await d.close();
  }
}

/** A workspace over its daily budget: the next message is refused with the reset time, never queued. */
export async function budgetRefusesTheNextMessage(start: StartDriver): Promise<void> {
  const d = await start({ config: `${MODELS}\nbudgets:\n  tokens:\n    workspace: 1000/day\n` });
  try {
    d.pipe.fake.script({ content: "That was expensive.", usage: { prompt_tokens: 1_500 } });
    await d.say("write me a long essay");
    await botSaid(d, /That was expensive/);
    await turnsCounted(d, "member", 1);
    await d.say("and another one");
    const refusal = await botSaid(d, /daily budget/);
    expect(refusal).toMatch(
      /^This workspace has used its daily budget of 1,000 tokens\. It resets at 00:00 UTC \(in (\d+ h( \d+ min)?|\d+ min|less than a minute)\); until then I can't answer here\./,
    );
    expect(d.pipe.fake.requests).toHaveLength(1);
  } finally {
    await d.close();
  }
}

/** A tool that runs for `ms` unless its turn is stopped. */
export function slowTool(ms: number) {
  const started: number[] = [];
  const tool = defineTool({
    id: "query_db",
    description: "Runs a query on the team database.",
    parameters: z.object({ sql: z.string() }),
    execute: async ({ sql }, ctx) => {
      started.push(Date.now());
      await sleep(ms, undefined, { signal: ctx.signal }).catch(() => {});
      return `rows for ${sql}`;
    },
  });
  return { tool, started };
}

/**
 * An ingress process of its own (no worker): its turn signals are how a
 * `/stop` typed there reaches the worker running the turn.
 */
export async function startIngressProcess(prefix: string): Promise<Switchyard> {
  return startSwitchyard({
    redis: testRedisFactory(),
    prefix,
    registry: new ToolRegistry([]),
    provider: unconfiguredProvider(),
    worker: false,
  });
}

/** `/stop` from another process stops a 20 s tool within a second or so; the conversation goes on. */
export async function stopEndsARunningTurn(start: StartDriver, typed = "/stop"): Promise<void> {
  const { tool, started } = slowTool(20_000);
  let ingress: Switchyard | undefined;
  const d = await start({
    config: MODELS,
    tools: [tool, lookupTool, bigTool],
    stopTurn: (address) => {
      if (!ingress) throw new Error("the ingress process is not up yet");
      return ingress.signals.send(address, "stop");
    },
  });
  ingress = await startIngressProcess(d.pipe.prefix);
  try {
    await d.say(typed);
    await botSaid(d, /Nothing is running here/);
    d.pipe.fake.script({
      toolCalls: [{ id: "call_q", name: "query_db", arguments: { sql: "select *" } }],
    });
    await d.say("run the big report");
    await until(() => (started.length === 1 ? true : undefined));
    const asked = Date.now();
    await d.say(typed);
    await botSaid(d, /Stopping what I was doing/);
    await botSaid(d, /^Stopped\.$/);
    // Loosely: the 20 s tool did not run out its time.
    expect(Date.now() - asked).toBeLessThan(5_000);
    d.pipe.fake.script({ content: "Here is the small one." });
    await d.say("just the small report then");
    await botSaid(d, /Here is the small one/);
  } finally {
    await ingress.close();
    await d.close();
  }
}

/** `/help` lists what this person may use: the admin forms only for admins. */
export async function helpListsWhatThePersonMayUse(
  start: StartDriver,
  typed = "/help",
  withMember = true,
): Promise<void> {
  const d = await start({ config: MODELS });
  try {
    await d.say(typed, "admin");
    const admin = await botSaid(d, /Commands you can use here/, "admin");
    expect(admin).toContain("/new [--all] - Starts a fresh conversation");
    expect(admin).toContain("/model <name> [channel] - Switches it");
    expect(admin).toContain("/queue <mode> [channel] - Sets it");
    expect(admin).toMatch(/Tools: 2 of 2 tools available, load mode \w+\./);
    if (!withMember) return;
    await d.say(typed);
    const member = await botSaid(d, /Commands you can use here/);
    expect(member).toContain("/new [--all] - Starts a fresh conversation");
    expect(member).toContain("/stop - Stops what I'm doing here.");
    expect(member).toContain("/model - The model I use here.");
    expect(member).not.toContain("/model <name>");
    expect(member).not.toContain("/queue <mode>");
    expect(member).toMatch(/For changes only admins can make, ask: \S+:/);
    expect(d.pipe.fake.requests).toHaveLength(0);
  } finally {
    await d.close();
  }
}

/**
 * `/skill` near the limit: a request the person typed under the inbound
 * limit, which the skill's instructions carry over it, is answered as too
 * long (the length the model would have read), as a message over the
 * limit is; nothing reaches the model, and the conversation goes on.
 */
export async function skillOverTheLimitIsTooLong(start: StartDriver): Promise<void> {
  const skills = await loadSkills({ global: [], workspaces: {} });
  const d = await start({ config: "", skills });
  try {
    const skill = skills
      .sourcesFor()
      .flatMap((source) => source.skills)
      .find((s) => s.name === "meeting-notes");
    if (!skill) throw new Error("the built-in meeting-notes skill is missing");
    // Room for a mention and the command: the typed line stays under the limit.
    const request = "x".repeat(INBOUND_TEXT_LIMIT - 100);
    const expanded = skillInvocationText(skill, request);
    expect(expanded.length).toBeGreaterThan(INBOUND_TEXT_LIMIT);
    d.pipe.fake.script({ content: "Short one answered." });
    await d.say(`/skill meeting-notes ${request}`);
    await d.say("short one");
    // Not botSaid: where the answer never comes, the comparison below shows what was said instead.
    await until(() => (d.said().includes("Short one answered.") ? true : undefined)).catch(
      () => {},
    );
    await sleep(300);
    expect(d.said()).toEqual([tooLongReply(expanded.length), "Short one answered."]);
    expect(d.pipe.fake.requests).toHaveLength(1);
    expect(d.pipe.fake.requests[0]?.body.messages.at(-1).content).toMatch(/short one$/);
  } finally {
    await d.close();
    skills.close();
  }
}

/** Waits until the worker has counted the persona's turns (it counts right after delivering). */
async function turnsCounted(d: CommandDriver, who: Persona, turns: number): Promise<void> {
  const address = d.address(who);
  for (let i = 0; i < 300; i++) {
    const today = await d.pipe.app.store.usage.read(
      { kind: "conversation", address },
      dayPeriod(Date.now()),
    );
    if (today.turns >= turns) return;
    await sleep(25);
  }
  throw new Error(`the turns of ${JSON.stringify(address)} were not counted`);
}

/** `/queue`: shows the mode and where it comes from; an admin sets it, someone else is refused. */
export async function queueShowsAndSets(start: StartDriver, withMember = true): Promise<void> {
  const d = await start({ config: MODELS });
  try {
    await d.say("/queue", "admin");
    await botSaid(
      d,
      /^Queue mode here: collect \(from the config\): messages sent while I work make my next turn\. Modes: collect, steer, followup, interrupt\.$/,
      "admin",
    );
    await d.say("/queue steer channel", "admin");
    await botSaid(
      d,
      /^Queue mode of this channel is now steer, from my next turn: messages sent while I work reach me before my next step\.$/,
      "admin",
    );
    await d.say("/queue sideways", "admin");
    await botSaid(
      d,
      /"sideways" is not a queue mode\. Use one of collect, steer, followup, interrupt, or default\./,
      "admin",
    );
    await d.say("/queue", "admin");
    await botSaid(d, /^Queue mode here: steer \(set for this channel\)/, "admin");
    if (!withMember) return;
    await d.say("/queue followup");
    await botSaid(
      d,
      /Only workspace admins or the bot's configured admins can change the queue mode/,
    );
  } finally {
    await d.close();
  }
}

/**
 * Every scenario above as a test, the way each platform whose people may be
 * admins runs them; call inside the platform's `describe`. `where` names the
 * conversation that goes on after `/stop` ("DM", "channel").
 */
export function itAnswersTheChatCommands(start: StartDriver, where: string): void {
  it("/new makes the next model request carry no earlier messages", () => newForgetsHistory(start));
  it("/usage shows the tokens the model reported, the cached share and the cost", () =>
    usageMatchesTheModel(start));
  it("/model switches the next request's model for an admin and refuses a name not in the list", () =>
    modelSwitchesTheRequest(start));
  it("refuses a message once the workspace's daily token budget is spent, saying when it resets", () =>
    budgetRefusesTheNextMessage(start));
  it(
    `/stop from another process stops a turn running a 20 s tool, and the ${where} goes on`,
    () => stopEndsARunningTurn(start),
    40_000,
  );
  it("/help lists only what the person may use", () => helpListsWhatThePersonMayUse(start));
}
