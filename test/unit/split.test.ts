import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clip, splitMessage } from "../../src/core/delivery/split.ts";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const line = fc.oneof(
  fc.string({ maxLength: 80 }).map((s) => s.replace(/`/g, "'")),
  fc.constantFrom("```ts", "```", "", "- item", "# Title"),
);
/** Lines a model writes when it goes wrong: emoji without spaces, runs of blank lines, odd fences. */
const wildLine = fc.oneof(
  { weight: 3, arbitrary: line },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("😀", "x", "\n", "> ", "中"), fc.integer({ min: 1, max: 300 }))
      .map(([unit, times]) => unit.repeat(times)),
  },
  { weight: 1, arbitrary: fc.constantFrom("~~~py", "~~~", "````md", "````", "> ```sh", "> ```") },
);

/** Whether a code block is still open at the end: "```ts" opens one, only a bare "```" closes it (CommonMark). */
function fenceOpenAtEnd(text: string): boolean {
  let open = false;
  for (const l of text.split("\n")) {
    if (open ? /^\s*```\s*$/.test(l) : /^\s*```/.test(l)) open = !open;
  }
  return open;
}

/** The text of the parts without what the splitter added, to compare with what was split. */
const strip = (s: string) => s.replace(/^(?:> )*(?:```|~~~)[^\n]*/gm, "").replace(/\s+/g, "");

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
          // Every part closes the code blocks it opens, when the text closes its own.
          if (!fenceOpenAtEnd(text)) {
            for (const part of parts) expect(fenceOpenAtEnd(part)).toBe(false);
          }
          // Without the fences the splitter added, the parts are the text again.
          expect(parts.map(strip).join("")).toBe(strip(text));
        },
      ),
    );
  });

  it("property: any text splits into parts within the limit, none blank, none with half an emoji, nothing lost", () => {
    fc.assert(
      fc.property(
        fc.array(wildLine, { maxLength: 60 }),
        fc.integer({ min: 32, max: 600 }),
        (lines, max) => {
          const text = lines.join("\n");
          const parts = splitMessage(text, max);
          for (const part of parts) {
            expect(part.length).toBeLessThanOrEqual(max);
            expect(part).not.toMatch(LONE_SURROGATE);
            if (/\S/.test(text)) expect(part).toMatch(/\S/);
          }
          expect(parts.map(strip).join("")).toBe(strip(text));
        },
      ),
    );
  });

  it("never cuts an emoji in half where a line has no space to cut at", () => {
    const text = `a${"😀".repeat(5000)}`;
    const parts = splitMessage(text, 4000);
    for (const part of parts) expect(part).not.toMatch(LONE_SURROGATE);
    expect(parts.join("")).toBe(text);
  });

  it("splits a 1 MB answer into parts within the limit, losing nothing", () => {
    const text = `${"A sentence of the answer, and another. ".repeat(20_000)}${"x".repeat(200_000)}`;
    const parts = splitMessage(text, 4000);
    expect(parts.join("")).toBe(text);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThanOrEqual(4000);
    expect(parts.length).toBeLessThan(text.length / 3000);
  });

  it("keeps every part within the limit when a fence is too long to repeat", () => {
    const text = `\`\`\`${"a".repeat(100)}\n${"x ".repeat(500)}`;
    const parts = splitMessage(text, 64);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(64);
    expect(parts.length).toBeLessThan(30);
    expect(parts.join("")).toBe(text);
  });

  it("closes and reopens a fence as it was opened: backticks or tildes, as many, quoted or not", () => {
    const outer = splitMessage(`\`\`\`\`md\n${"```ts\ncode\n```\n".repeat(30)}\`\`\`\``, 100);
    for (const part of outer) expect(part).toMatch(/^````(?:md)?\n[\s\S]*\n````$/);
    const tilde = splitMessage(`~~~py\n${"print(1)\n".repeat(30)}~~~`, 100);
    for (const part of tilde) expect(part).toMatch(/^~~~py\n[\s\S]*\n~~~$/);
    const quoted = splitMessage(`> \`\`\`py\n${"> print(1)\n".repeat(30)}> \`\`\``, 100);
    for (const part of quoted) expect(part).toMatch(/^> ```py\n[\s\S]*\n> ```$/);
  });

  it("sends no blank part for a long run of blank lines", () => {
    expect(splitMessage(`Answer:${"\n".repeat(10_000)}end`, 4000).map((p) => p.trim())).toEqual([
      "Answer:",
      "end",
    ]);
  });

  it("refuses a limit that is not a whole number, instead of never returning", () => {
    expect(() => splitMessage("x".repeat(100), Number.NaN)).toThrow(/whole number/);
    expect(() => splitMessage("x".repeat(100), 40.5)).toThrow(/whole number/);
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

describe("clip", () => {
  it("never ends in half an emoji, and keeps what fits", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.integer({ min: 0, max: 50 }), (text, max) => {
        const cut = clip(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(text.startsWith(cut)).toBe(true);
        const last = cut.charCodeAt(cut.length - 1);
        expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
        expect(cut.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
      }),
    );
    expect(clip("ab😀", 3)).toBe("ab");
  });
});
