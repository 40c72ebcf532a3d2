import { describe, expect, it } from "vitest";
import {
  benchAnthropicPromptCache,
  runAnthropicCacheBench,
} from "../../bench/prompt-cache-anthropic.ts";

describe("the Anthropic prompt-cache bench", () => {
  it("reads every turn at the simulator's ceiling, and the /tools toggle costs one write that the next turn reads back", () => {
    const lines: string[] = [];
    expect(benchAnthropicPromptCache((line) => lines.push(line))).toBe(true);
    const { turns, breakpoints } = runAnthropicCacheBench();
    expect(turns).toHaveLength(20);
    const toggle = turns[9];
    expect(toggle).toMatchObject({ read: 0 });
    expect(turns[10]?.read).toBe(toggle?.written);
    for (const t of turns.slice(1)) {
      if (t.turn !== 10) expect(t.read).toBe(t.ceiling);
      // A turn writes only what is new since the last: the previous answer and this question.
      if (t.turn !== 10) expect(t.written).toBeLessThan(100);
    }
    expect(breakpoints).toMatch(
      /^tools #\d+ of \d+; system end; messages \[\d+\.1\] \[\d+\.1\] of \d+$/,
    );
    expect(lines.some((l) => l.startsWith("mean cached share of turns 2-20: Anthropic"))).toBe(
      true,
    );
  });
});
