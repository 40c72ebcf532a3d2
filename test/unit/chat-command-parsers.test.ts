import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { budgetRefusalText, spentBudget } from "../../src/core/budget/token-budget.ts";
import { costMicros, formatWait, NO_USAGE, nextUtcMidnight } from "../../src/core/budget/usage.ts";
import { ConfigError, parseTokenBudget } from "../../src/core/config/index.ts";
import { CHAT_COMMANDS } from "../../src/ingress/chat-commands.ts";
import { findCommand, parseCommandLine } from "../../src/ingress/commands/registry.ts";
import { parseSettingArgs } from "../../src/ingress/commands/setting-args.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { firstRefusal } from "../../src/ports/admission.ts";

const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}$/);

describe("parseCommandLine", () => {
  it("never throws, and reads only a line that starts with / or ! and a command word", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const read = parseCommandLine(text);
        if (read === undefined) return;
        expect(/^\s*[/!][A-Za-z]/.test(text)).toBe(true);
        expect(read.name).toBe(read.name.toLowerCase());
        expect(read.args).toBe(read.args.trim());
      }),
    );
  });

  it("reads back the name, the bot and the arguments it was given", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("/", "!"),
        word,
        fc.option(fc.stringMatching(/^[A-Za-z0-9_]{1,30}$/), { nil: undefined }),
        fc.string({ maxLength: 80 }),
        (mark, name, bot, args) => {
          const line = `${mark}${name}${bot ? `@${bot}` : ""} ${args}`;
          expect(parseCommandLine(line)).toEqual({
            name,
            ...(bot ? { target: bot } : {}),
            args: args.trim(),
          });
        },
      ),
    );
  });

  it("finds every registered command by name and alias, in any case", () => {
    for (const command of CHAT_COMMANDS) {
      for (const name of [command.name, ...(command.aliases ?? [])]) {
        const typed = parseCommandLine(`/${name.toUpperCase()} x`);
        expect(findCommand(CHAT_COMMANDS, typed?.name ?? "")).toBe(command);
      }
    }
    expect(findCommand(CHAT_COMMANDS, "reset")?.name).toBe("new");
    expect(parseCommandLine("what is /new?")).toBeUndefined();
  });
});

describe("parseSettingArgs", () => {
  it("never throws; shows with nothing, sets with a value and a known scope, else names the problem", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (args) => {
        const read = parseSettingArgs(args, "/model <name>");
        const words = args.split(/\s+/).filter(Boolean);
        if (words.length === 0) expect(read).toEqual({ kind: "show" });
        else if (read.kind === "bad") expect(read.problem).toContain("Usage: /model <name>");
        else {
          expect(read.kind).toBe("set");
          expect(words.length).toBeLessThanOrEqual(2);
        }
      }),
    );
    expect(parseSettingArgs("big-model channel", "u")).toEqual({
      kind: "set",
      value: "big-model",
      scope: "channel",
    });
    expect(parseSettingArgs("default", "u")).toEqual({
      kind: "set",
      value: undefined,
      scope: "conversation",
    });
  });
});

describe("parseTokenBudget", () => {
  it("never throws, and a budget it reads is a whole number of tokens of at least 1", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.double(), fc.integer()), (written) => {
        const read = parseTokenBudget(written);
        if ("tokens" in read) {
          expect(Number.isSafeInteger(read.tokens) && read.tokens >= 1).toBe(true);
        } else {
          expect(read.problem).toMatch(/e\.g\. 200000\/day/);
        }
      }),
    );
  });

  it("reads the ways people write a daily budget", () => {
    expect(parseTokenBudget("200000/day")).toEqual({ tokens: 200_000 });
    expect(parseTokenBudget("200k/day")).toEqual({ tokens: 200_000 });
    expect(parseTokenBudget("2M / day")).toEqual({ tokens: 2_000_000 });
    expect(parseTokenBudget("2_000_000")).toEqual({ tokens: 2_000_000 });
    expect(parseTokenBudget(5000)).toEqual({ tokens: 5_000 });
    expect(parseTokenBudget("5000/hour")).toEqual({
      problem: expect.stringContaining("token budgets are per day"),
    });
  });
});

describe("the budgets: and models: config sections", () => {
  const section = fc.oneof(
    fc.anything(),
    fc.record({
      tokens: fc.oneof(
        fc.anything(),
        fc.record({ user: fc.oneof(fc.string(), fc.integer(), fc.anything()) }),
      ),
    }),
  );
  it("read any value as a config or a ConfigError naming the file and the key", () => {
    fc.assert(
      fc.property(section, section, (budgets, models) => {
        const text = JSON.stringify({ budgets, models }) ?? "{}";
        try {
          parseConfig(text, "fuzz.yaml");
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          expect(error.message).toMatch(/^fuzz\.yaml(:\d+)?: (budgets|models)/);
        }
      }),
    );
  });

  it("names the line and the fix for a budget that is not per day, and a model choice not in the list", () => {
    expect(() => parseConfig("budgets:\n  tokens:\n    user: 10/hour\n", "s.yaml")).toThrow(
      /^s\.yaml:3: budgets\.tokens\.user: "10\/hour": token budgets are per day/,
    );
    expect(() => parseConfig("budgets:\n  turn_estimate_tokens: 8000/day\n", "s.yaml")).toThrow(
      /^s\.yaml:2: budgets\.turn_estimate_tokens: "8000\/day" is not a number of tokens\. Write what one turn costs, e\.g\. 8000 or 8k\./,
    );
    expect(parseConfig("budgets:\n  turn_estimate_tokens: 8k\n", "s.yaml").budgets).toEqual({
      turnEstimateTokens: 8_000,
    });
    expect(() =>
      parseConfig('models:\n  list:\n    - name: a\n  channels:\n    "slack:C1": b\n', "s.yaml"),
    ).toThrow(
      /models\.channels\.slack:C1: b is not in models\.list; add it there, or choose one of: a\./,
    );
  });
});

describe("token budgets", () => {
  const counts = fc.record({
    prompt: fc.nat(10_000_000),
    cached: fc.nat(10_000_000),
    completion: fc.nat(10_000_000),
    turns: fc.nat(1000),
    costMicros: fc.nat(),
  });
  it("refuse exactly when a day's tokens reach a budget, the workspace's named first, resetting at the next midnight UTC", () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 1, max: 20_000_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 20_000_000 }), { nil: undefined }),
        counts,
        counts,
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        (user, workspace, mine, ours, now) => {
          const budgets = {
            ...(user !== undefined ? { userTokensPerDay: user } : {}),
            ...(workspace !== undefined ? { workspaceTokensPerDay: workspace } : {}),
          };
          const spent = spentBudget(budgets, { user: mine, workspace: ours }, now);
          const over = (budget: number | undefined, c: typeof mine) =>
            budget !== undefined && c.prompt + c.completion >= budget;
          expect(spent !== undefined).toBe(over(workspace, ours) || over(user, mine));
          if (over(workspace, ours)) expect(spent?.owner).toBe("workspace");
          if (!spent) return;
          expect(spent.resetsAt).toBe(nextUtcMidnight(now));
          expect(spent.resetsAt - now).toBeGreaterThan(0);
          expect(spent.resetsAt - now).toBeLessThanOrEqual(86_400_000);
          expect(new Date(spent.resetsAt).toISOString()).toMatch(/T00:00:00\.000Z$/);
          expect(budgetRefusalText(spent, now)).toContain("It resets at 00:00 UTC (in ");
        },
      ),
    );
    expect(spentBudget({}, { user: NO_USAGE, workspace: NO_USAGE }, 0)).toBeUndefined();
  });

  it("say the wait in hours and minutes", () => {
    expect(formatWait(30_000)).toBe("less than a minute");
    expect(formatWait(45 * 60_000)).toBe("45 min");
    expect(formatWait(3 * 3_600_000 + 12 * 60_000)).toBe("3 h 12 min");
    expect(formatWait(2 * 3_600_000)).toBe("2 h");
  });

  it("price uncached, cached and completion tokens each at their rate", () => {
    const usage = { promptTokens: 1_200, cachedTokens: 1_000, completionTokens: 34 };
    expect(costMicros(usage, { input: 0.4, cached: 0.1, output: 1.6 })).toBe(234);
    expect(costMicros(usage, undefined)).toBe(0);
  });
});

describe("firstRefusal", () => {
  it("answers the first check that refuses, and runs none after it", async () => {
    const ran: string[] = [];
    const check = (name: string, refuse: boolean) => async () => {
      ran.push(name);
      return refuse ? { reason: name, text: `no (${name})` } : undefined;
    };
    const message = {
      platform: "slack",
      workspace: "T",
      channel: "C",
      conversation: "C",
      user: "U",
    };
    expect(
      await firstRefusal(check("a", false), check("b", true), check("c", true))(message),
    ).toEqual({ reason: "b", text: "no (b)" });
    expect(ran).toEqual(["a", "b"]);
    expect(await firstRefusal(check("d", false))(message)).toBeUndefined();
  });
});
