/**
 * Runs one scenario file against a test bot and says, step by step, what
 * held and what did not. A failed expectation does not stop the scenario:
 * the report shows every step.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { askJudge, describeVerdict } from "./judge.ts";
import type { ForwardOptions } from "./recorded-model.ts";
import {
  parseScenario,
  type ScenarioAction,
  type ScenarioExpectation,
  scenarioModel,
} from "./scenario.ts";
import { type Answer, createTestBot, type TestBot, type TestBotOptions } from "./test-bot.ts";

export interface StepReport {
  /** What the step did, e.g. `say "Do we have the kettle?"`. */
  readonly label: string;
  /** What did not hold; empty when the step passed. */
  readonly problems: readonly string[];
  /** What the report shows either way: the judge's score and reason. */
  readonly notes?: readonly string[];
}

export interface ScenarioReport {
  readonly file: string;
  readonly name: string;
  readonly steps: readonly StepReport[];
  /** A failure before or outside the steps (the file, the bot module, the start). */
  readonly error?: string;
  readonly passed: boolean;
}

export interface RunScenarioOptions {
  /** A Redis URL; default `REDIS_URL`, else a throwaway `redis-server`. */
  readonly redis?: string;
  /** How long each step waits for the bot's answer; default 20 s. */
  readonly timeoutMs?: number;
  /**
   * A real model to run against instead of the scenario's scripted one
   * (`switchyard test --model real`): the bot's requests, and the judge's,
   * are forwarded to it, through its cache file when it has one.
   */
  readonly realModel?: ForwardOptions;
}

export async function runScenario(
  file: string,
  options: RunScenarioOptions = {},
): Promise<ScenarioReport> {
  const path = resolve(file);
  let name = file;
  let bot: TestBot | undefined;
  const steps: StepReport[] = [];
  // A replay's cache misses: the bot only says its model failed, so the report says why.
  const misses: string[] = [];
  const realModel = options.realModel && {
    ...options.realModel,
    onMiss: (reason: string) => misses.push(reason),
  };
  try {
    const scenario = parseScenario(readFileSync(path, "utf8"), file);
    name = scenario.name;
    const parts = scenario.bot ? await botModule(resolve(dirname(path), scenario.bot)) : {};
    bot = await createTestBot({
      ...parts,
      ...(scenario.config ? { config: resolve(dirname(path), scenario.config) } : {}),
      ...(scenario.platforms ? { platforms: scenario.platforms } : {}),
      model: realModel ? { forward: realModel } : scenarioModel(scenario.model),
      ...(options.redis ? { redis: options.redis } : {}),
    });
    const judgeModel = scenario.judge_model ?? bot.model.model;
    const timeoutMs = options.timeoutMs ?? (options.realModel ? 120_000 : 20_000);
    for (const action of scenario.steps) {
      const step = await runStep(bot, action, timeoutMs, judgeModel);
      const missed = [...new Set(misses.splice(0))];
      steps.push(missed.length ? { ...step, problems: [...step.problems, ...missed] } : step);
    }
    return { file, name, steps, passed: steps.every((s) => s.problems.length === 0) };
  } catch (error) {
    return { file, name, steps, error: (error as Error).message, passed: false };
  } finally {
    await bot?.stop();
  }
}

/** The bot module's `testBot` export (or its default): createTestBot's options. */
async function botModule(path: string): Promise<TestBotOptions> {
  const module = (await import(pathToFileURL(path).href)) as {
    testBot?: TestBotOptions;
    default?: TestBotOptions;
  };
  const parts = module.testBot ?? module.default;
  if (!parts || typeof parts !== "object") {
    throw new Error(
      `${path} exports no testBot: export const testBot = { tools: [...], persona: "..." }.`,
    );
  }
  return parts;
}

async function runStep(
  bot: TestBot,
  action: ScenarioAction,
  timeoutMs: number,
  judgeModel: string,
): Promise<StepReport> {
  const callsBefore = bot.toolCalls().length;
  let label: string;
  let said: string;
  if ("say" in action) {
    const { text, ...where } = typeof action.say === "string" ? { text: action.say } : action.say;
    label = `say ${JSON.stringify(text)}`;
    said = text;
    await bot.say(text, where);
  } else if ("click" in action) {
    label = `click ${JSON.stringify(action.click)}`;
    said = `(pressed the button "${action.click}")`;
    await bot.click(action.click, whereOf(action));
  } else if ("approve" in action) {
    label = "approve";
    said = '(pressed "Approve")';
    await bot.approve(whereOf(action));
  } else {
    label = "deny";
    said = '(pressed "Deny")';
    await bot.deny(whereOf(action));
  }
  let answer: Answer;
  try {
    answer = await bot.nextAnswer({ timeoutMs });
  } catch (error) {
    return { label, problems: [(error as Error).message] };
  }
  if (!action.expect) return { label, problems: [] };
  // Checked before the judge is asked: its request would be the model's latest, and so the contract's.
  const problems = check(bot, answer, action.expect, callsBefore);
  const judge = action.expect.judge;
  if (!judge) return { label, problems };
  const pass = judge.pass ?? DEFAULT_PASS;
  const verdict = await askJudge(
    bot.model.url,
    judgeModel,
    { rubric: judge.rubric, said, answer: answer.text },
    timeoutMs,
  );
  if (typeof verdict === "string") return { label, problems: [...problems, verdict] };
  const line = describeVerdict(verdict, pass);
  return verdict.score < pass
    ? { label, problems: [...problems, `${line} (below the pass mark)`] }
    : { label, problems, notes: [line] };
}

/** A judged answer passes at this score unless the step says `pass:`. */
export const DEFAULT_PASS = 0.7;

function whereOf(action: ScenarioAction): Parameters<TestBot["say"]>[1] {
  const { platform, user, channel, thread } = action as unknown as Record<
    string,
    string | undefined
  >;
  return {
    ...(platform ? { platform: platform as "slack" | "telegram" | "discord" } : {}),
    ...(user ? { user } : {}),
    ...(channel ? { channel } : {}),
    ...(thread ? { thread } : {}),
  };
}

const list = (value: string | readonly string[] | undefined): readonly string[] =>
  value === undefined ? [] : typeof value === "string" ? [value] : value;

/**
 * Every expectation of a step that does not hold, each as a sentence. The
 * tool expectations read the calls made during the step (those after the
 * first `callsBefore`); the contract is the latest request's.
 */
export function check(
  bot: TestBot,
  answer: Answer,
  expect: ScenarioExpectation,
  callsBefore = 0,
): string[] {
  const problems: string[] = [];
  for (const part of list(expect.answer_contains)) {
    if (!answer.text.includes(part))
      problems.push(
        `the answer ${JSON.stringify(answer.text)} does not contain ${JSON.stringify(part)}`,
      );
  }
  if (expect.answer_matches !== undefined && !new RegExp(expect.answer_matches).test(answer.text)) {
    problems.push(
      `the answer ${JSON.stringify(answer.text)} does not match /${expect.answer_matches}/`,
    );
  }
  const calls = bot.toolCalls().slice(callsBefore);
  if (expect.tool_called !== undefined) {
    const wanted =
      typeof expect.tool_called === "string" ? { name: expect.tool_called } : expect.tool_called;
    const found = calls.some(
      (call) =>
        call.name === wanted.name &&
        Object.entries(wanted.args ?? {}).every(([key, value]) =>
          isDeepStrictEqual((call.args as Record<string, unknown> | undefined)?.[key], value),
        ),
    );
    if (!found) {
      const made = calls.map((c) => `${c.name}(${JSON.stringify(c.args)})`).join(", ") || "none";
      problems.push(
        `no call of ${wanted.name}${wanted.args ? ` with ${JSON.stringify(wanted.args)}` : ""}; the calls were: ${made}`,
      );
    }
  }
  for (const name of list(expect.tool_not_called)) {
    if (calls.some((c) => c.name === name)) problems.push(`${name} was called`);
  }
  const offered = bot.contract().tools;
  for (const name of list(expect.contract_has)) {
    if (!offered.includes(name))
      problems.push(
        `the model was not offered ${name} (it was offered: ${offered.join(", ") || "nothing"})`,
      );
  }
  for (const name of list(expect.contract_lacks)) {
    if (offered.includes(name)) problems.push(`the model was offered ${name}`);
  }
  if (expect.answers !== undefined && bot.answers().length !== expect.answers) {
    problems.push(`the bot has posted ${bot.answers().length} message(s), not ${expect.answers}`);
  }
  return problems;
}
