import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

// The README sells and starts (what it is, the two commands, one platform end to end,
// links); the rest lives in docs/. It crept to 307 lines once: this keeps it short.
it("keeps the README at most 300 lines, the rest in docs/", () => {
  const lines = readFileSync(new URL("../../README.md", import.meta.url), "utf8").split("\n");
  expect(lines.at(-1)).toBe("");
  expect(lines.length - 1).toBeLessThanOrEqual(300);
});
