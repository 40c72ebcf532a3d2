import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expandCatalogName, renderCatalog } from "../../src/core/loading/catalog.ts";
import { compareIds } from "../../src/core/tools/registry.ts";

const part = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const toolName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,12}$/);
const mcpId = fc.tuple(part, toolName).map(([server, tool]) => `mcp__${server}__${tool}`);
const plainId = toolName.filter((id) => !id.startsWith("mcp__"));
const deferredList = fc
  .uniqueArray(fc.oneof(mcpId, plainId), { maxLength: 40 })
  .map((ids) => [...ids].sort(compareIds));

describe("the catalog of deferred tools", () => {
  it("lists exactly the deferred tools, in order, once each line is expanded", () => {
    fc.assert(
      fc.property(deferredList, (deferred) => {
        const catalog = renderCatalog(deferred);
        const lines = catalog === "" ? [] : catalog.trimEnd().split("\n");
        expect(lines.flatMap(expandCatalogName)).toEqual(deferred);
      }),
    );
  });

  it("never costs more characters than one name per line", () => {
    fc.assert(
      fc.property(deferredList, (deferred) => {
        const plain = deferred.map((id) => `${id}\n`).join("");
        expect(renderCatalog(deferred).length).toBeLessThanOrEqual(plain.length);
      }),
    );
  });

  it("writes an MCP server's prefix once, and leaves a lone tool as it is", () => {
    expect(
      renderCatalog([
        "fetch_url",
        "mcp__fs__read_file",
        "mcp__fs__write_file",
        "mcp__github__create_issue",
      ]),
    ).toBe("fetch_url\nmcp__fs__{read_file,write_file}\nmcp__github__create_issue\n");
    expect(renderCatalog([])).toBe("");
  });

  it("reads a braced line the model copied, spaces and all, as its names", () => {
    expect(expandCatalogName("mcp__fs__{read_file, write_file}")).toEqual([
      "mcp__fs__read_file",
      "mcp__fs__write_file",
    ]);
    expect(expandCatalogName(" current_time ")).toEqual(["current_time"]);
    expect(expandCatalogName("mcp__fs__{}")).toEqual([]);
  });
});
