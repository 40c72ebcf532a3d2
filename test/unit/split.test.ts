import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitMessage } from "../../src/channels/split.ts";

const line = fc.oneof(
  fc.string({ maxLength: 80 }).map((s) => s.replace(/`/g, "'")),
  fc.constantFrom("```ts", "```", "", "- item", "# Title"),
);

describe("splitting long answers", () => {
  it("keeps every part within the limit, every code fence balanced, and loses no text", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 200 }),
        fc.integer({ min: 64, max: 600 }),
        (lines, max) => {
          const text = lines.join("\n");
          const parts = splitMessage(text, max);
          for (const part of parts) expect(part.length).toBeLessThanOrEqual(max);
          // Fences balance in every part when the text's own fences balance.
          const fences = lines.filter((l) => l.startsWith("```")).length;
          if (fences % 2 === 0) {
            for (const part of parts) expect((part.match(/^\s*```/gm) ?? []).length % 2).toBe(0);
          }
          // Without the fences the splitter added, the parts are the text again.
          const strip = (s: string) => s.replace(/```[^\n]*/g, "").replace(/\s+/g, "");
          expect(parts.map(strip).join("")).toBe(strip(text));
        },
      ),
    );
  });

  it("leaves a short answer whole", () => {
    expect(splitMessage("hello", 100)).toEqual(["hello"]);
  });

  it("reopens a cut code block with its language", () => {
    const code = `\`\`\`python\n${"print(1)\n".repeat(30)}\`\`\``;
    const parts = splitMessage(code, 100);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts[1]?.startsWith("```python\n")).toBe(true);
    expect(parts[0]?.endsWith("```")).toBe(true);
  });

  it("refuses a limit too small to hold a fence", () => {
    expect(() => splitMessage("x", 10)).toThrow(/at least 32/);
  });
});
