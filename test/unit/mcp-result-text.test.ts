import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mcpResultText } from "../../src/tools/mcp/index.ts";

const base64 = (bytes: number) => Buffer.alloc(bytes).toString("base64");

describe("mcpResultText", () => {
  it("joins text blocks one per line", () => {
    const result: CallToolResult = {
      content: [
        { type: "text", text: "first" },
        { type: "text", text: "second" },
      ],
    };
    expect(mcpResultText(result)).toBe("first\nsecond");
  });

  it("describes images and audio by type and size instead of pasting base64", () => {
    const result: CallToolResult = {
      content: [
        { type: "image", mimeType: "image/png", data: base64(12 * 1024) },
        { type: "audio", mimeType: "audio/wav", data: base64(500) },
      ],
    };
    expect(mcpResultText(result)).toBe("[image: image/png, 12 KB]\n[audio: audio/wav, 500 B]");
  });

  it("includes a text resource under its URI and MIME type, capped", () => {
    const result: CallToolResult = {
      content: [
        {
          type: "resource",
          resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "x".repeat(30) },
        },
      ],
    };
    expect(mcpResultText(result, { resourceTextMax: 10 })).toBe(
      `[resource: file:///notes.txt (text/plain)]\n${"x".repeat(10)}\n[… 20 more characters of this resource cut]`,
    );
  });

  it("describes a binary resource and a resource link without their content", () => {
    const result: CallToolResult = {
      content: [
        {
          type: "resource",
          resource: { uri: "demo://blob/1", mimeType: "application/gzip", blob: base64(2048) },
        },
        {
          type: "resource_link",
          uri: "demo://text/2",
          name: "Text Resource 2",
          description: "a plaintext resource",
          mimeType: "text/plain",
        },
      ],
    };
    expect(mcpResultText(result)).toBe(
      "[resource: demo://blob/1 (application/gzip, 2 KB)]\n[resource link: demo://text/2 (text/plain) Text Resource 2: a plaintext resource]",
    );
  });

  it("gives structured content as canonical JSON when no block is text", () => {
    expect(mcpResultText({ content: [], structuredContent: { b: 1, a: [true] } })).toBe(
      '{"a":[true],"b":1}',
    );
    expect(
      mcpResultText({ content: [{ type: "text", text: "22 °C" }], structuredContent: { c: 22 } }),
    ).toBe("22 °C");
  });

  it("says so when a result has nothing in it", () => {
    expect(mcpResultText({ content: [] })).toBe("(the tool returned no content)");
  });

  it("renders any well-formed result without throwing, and never pastes binary data", () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant("text" as const), text: fc.string() }),
      fc.record({
        type: fc.constantFrom("image" as const, "audio" as const),
        mimeType: fc.string({ maxLength: 20 }),
        data: fc.base64String({ minLength: 200, maxLength: 400 }),
      }),
      fc.record({
        type: fc.constant("resource_link" as const),
        uri: fc.webUrl(),
        name: fc.string({ maxLength: 10 }),
      }),
      fc.record({
        type: fc.constant("resource" as const),
        resource: fc.record({
          uri: fc.webUrl(),
          blob: fc.base64String({ minLength: 200, maxLength: 400 }),
        }),
      }),
    );
    fc.assert(
      fc.property(
        fc.array(block, { maxLength: 6 }),
        fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
        (content, structuredContent) => {
          const text = mcpResultText({
            content,
            ...(structuredContent ? { structuredContent } : {}),
          });
          expect(text.length).toBeGreaterThan(0);
          for (const b of content) {
            if (b.type === "image" || b.type === "audio") expect(text).not.toContain(b.data);
            if (b.type === "resource") expect(text).not.toContain(b.resource.blob);
          }
        },
      ),
    );
  });
});
