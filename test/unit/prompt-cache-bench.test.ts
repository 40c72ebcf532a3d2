import { describe, expect, it } from "vitest";
import { benchPromptCache } from "../../bench/prompt-cache.ts";

describe("the prompt-cache bench", () => {
  it("shows no cached-share change when tools go on -> ask -> on, and a loss when they go off", () => {
    const lines: string[] = [];
    expect(benchPromptCache((line) => lines.push(line))).toBe(true);
    const share = (plan: string) => lines.find((l) => l.startsWith(plan))?.slice(24, 55);
    expect(share("on -> ask -> on")).toBe(share("untouched (baseline)"));
    expect(share("on -> off -> on")).not.toBe(share("untouched (baseline)"));
  });
});
