import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { judgeOutgoing, withFileNotes } from "../../src/core/attachments/outgoing.ts";
import { DEFAULT_ATTACHMENTS } from "../../src/core/config/index.ts";
import { isToolResult, ToolResultError, toolResult } from "../../src/core/tools/tool-result.ts";
import { mcpResultFiles } from "../../src/tools/mcp/result-files.ts";

const limits = { ...DEFAULT_ATTACHMENTS, maxImageBytes: 5_000, maxTurnBytes: 8_000 };

describe("a tool result with files", () => {
  it("keeps the text and the files, and is told from a plain string", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const result = toolResult("Made it.", [{ name: "a.bin", bytes }]);
    expect(result).toEqual({ text: "Made it.", files: [{ name: "a.bin", bytes }] });
    expect(isToolResult(result)).toBe(true);
    expect(isToolResult("Made it.")).toBe(false);
    expect(isToolResult({ text: "no files field" })).toBe(false);
  });

  it("refuses a file without a name or without bytes, saying how to build one", () => {
    expect(() => toolResult("x", [{ name: " ", bytes: new Uint8Array() }])).toThrow(
      /File 1 of the tool result has no name/,
    );
    const noBytes = { name: "r.pdf", bytes: "%PDF" as unknown as Uint8Array };
    expect(() => toolResult("x", [noBytes])).toThrow(ToolResultError);
    expect(() => toolResult("x", [noBytes])).toThrow(/as a Uint8Array or a Buffer/);
  });
});

describe("the caps on files tools make", () => {
  it("keeps a file under its kind's cap and the turn's total", () => {
    const v = judgeOutgoing({ name: "c.png", type: "image/png", bytes: 4_000 }, limits, 0);
    expect(v.kind).toBe("kept");
    expect(withFileNotes("Drawn.", [v])).toBe(
      "Drawn.\n\n[file: c.png (image/png, 4 KB) will be sent with your answer]",
    );
  });

  it("refuses a file over its kind's cap, naming the cap, its key and the size", () => {
    const v = judgeOutgoing({ name: "c.png", type: "image/png", bytes: 6_000 }, limits, 0);
    expect(withFileNotes("", [v])).toBe(
      "[file: c.png (image/png, 6 KB) was not sent: it is over the 5 KB cap (attachments.max_image_bytes). Say so in your answer.]",
    );
  });

  it("refuses a file that would take the turn over its total", () => {
    const v = judgeOutgoing(
      { name: "r.pdf", type: "application/pdf", bytes: 3_000 },
      limits,
      6_000,
    );
    expect(v).toMatchObject({ kind: "refused" });
    expect(v.kind === "refused" && v.why).toBe(
      "the files of one turn may total 8 KB (attachments.max_turn_bytes) and only 2 KB was left",
    );
  });

  it("keeps a file that fills the turn's total to the byte, and refuses one byte more", () => {
    const pdf = (bytes: number) => ({ name: "r.pdf", type: "application/pdf", bytes });
    expect(judgeOutgoing(pdf(2_000), limits, 6_000).kind).toBe("kept");
    expect(judgeOutgoing(pdf(2_001), limits, 6_000).kind).toBe("refused");
  });

  it("keeps exactly the files within both caps, whatever the sizes", () => {
    fc.assert(
      fc.property(
        // Sizes near the caps (5,000 and 8,000 here) as often as anywhere else.
        fc.oneof(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 4_990, max: 5_010 })),
        fc.oneof(fc.integer({ min: 0, max: 20_000 }), fc.constant(3_000), fc.constant(0)),
        fc.constantFrom("image/png", "application/pdf", "audio/ogg", "video/mp4"),
        (bytes, used, type) => {
          const v = judgeOutgoing({ name: "f", type, bytes }, limits, used);
          const kindCap = {
            "image/png": limits.maxImageBytes,
            "application/pdf": limits.maxDocumentBytes,
            "audio/ogg": limits.maxAudioBytes,
            "video/mp4": limits.maxOtherBytes,
          }[type];
          expect(v.kind === "kept").toBe(bytes <= kindCap && used + bytes <= limits.maxTurnBytes);
        },
      ),
    );
  });
});

describe("the files of an MCP tool result", () => {
  it("decodes image blocks and blob resources, named from the URI or by position", () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const files = mcpResultFiles({
      content: [
        { type: "text", text: "Here." },
        { type: "image", data: png.toString("base64"), mimeType: "image/png" },
        {
          type: "resource",
          resource: { uri: "file:///exports/q4%20report.pdf", blob: "JVBERg==", mimeType: "x" },
        },
        { type: "resource", resource: { uri: "demo://blob/7", blob: "AAE=" } },
        { type: "resource", resource: { uri: "demo://text/1", text: "just text" } },
      ],
    });
    expect(files.map((f) => [f.name, f.type, Buffer.from(f.bytes).toString("hex")])).toEqual([
      ["image-1.png", "image/png", "89504e47"],
      ["q4 report.pdf", "x", "25504446"],
      ["file-3.bin", undefined, "0001"],
    ]);
  });
});
