import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isMcpServerName } from "../../src/core/config/mcp-section.ts";
import { TOOL_ID_PATTERN } from "../../src/core/tools/tool.ts";
import { mcpToolId, mcpToolIds } from "../../src/tools/mcp/index.ts";

const serverName = fc
  .stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,23}$/)
  .filter((name) => isMcpServerName(name));

/** Names as MCP servers write them: plain, dotted, unicode, empty, very long. */
const toolName = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
  fc.stringMatching(/^[A-Za-z0-9_.\-/: ]{0,90}$/),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ minLength: 60, maxLength: 120 }),
  fc.constantFrom("", "repo.search", "get-tiny-image", "a b", "__", "x".repeat(200)),
);

const names = fc.uniqueArray(toolName, { maxLength: 30 });

describe("MCP tool ids", () => {
  it("keeps a name that fits as mcp__<server>__<name>", () => {
    expect(mcpToolId("filesystem", "read_file")).toBe("mcp__filesystem__read_file");
    expect(mcpToolId("everything", "get-tiny-image")).toBe("mcp__everything__get-tiny-image");
  });

  it("maps a name providers refuse to a sanitized id with a hash of the original", () => {
    expect(mcpToolId("github", "repo.search")).toMatch(/^mcp__github__repo_search_[0-9a-f]{8}$/);
    expect(mcpToolId("github", "x".repeat(80))).toMatch(/^mcp__github__x+_[0-9a-f]{8}$/);
    expect(mcpToolId("github", "x".repeat(80))).toHaveLength(64);
  });

  it("is always a valid tool id under the server's prefix", () => {
    fc.assert(
      fc.property(serverName, names, (server, list) => {
        for (const id of mcpToolIds(server, list).values()) {
          expect(id).toMatch(TOOL_ID_PATTERN);
          expect(id.startsWith(`mcp__${server}__`)).toBe(true);
        }
      }),
    );
  });

  it("gives distinct names of one server distinct ids", () => {
    fc.assert(
      fc.property(serverName, names, (server, list) => {
        const ids = mcpToolIds(server, list);
        expect(ids.size).toBe(list.length);
        expect(new Set(ids.values()).size).toBe(list.length);
      }),
    );
  });

  it("stays distinct when one name is another's hashed id", () => {
    const hashed = mcpToolId("s", "a.b");
    const lookalike = hashed.slice("mcp__s__".length);
    const ids = mcpToolIds("s", ["a.b", lookalike]);
    expect(ids.get(lookalike)).toBe(hashed);
    expect(ids.get("a.b")).not.toBe(hashed);
    expect(ids.get("a.b")).toMatch(TOOL_ID_PATTERN);
  });

  it("gives the same ids whatever order the server lists its tools in", () => {
    const listAndShuffle = names.chain((list) =>
      fc.tuple(
        fc.constant(list),
        fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }),
      ),
    );
    fc.assert(
      fc.property(serverName, listAndShuffle, (server, [list, shuffled]) => {
        expect([...mcpToolIds(server, shuffled)]).toEqual([...mcpToolIds(server, list)]);
      }),
    );
  });

  it("gives a name its id alone whatever its neighbours, unless a neighbour holds that id", () => {
    fc.assert(
      fc.property(serverName, names, (server, list) => {
        const ids = mcpToolIds(server, list);
        for (const [name, id] of ids) {
          const alone = mcpToolId(server, name);
          if (id === alone) continue;
          expect([...ids].some(([other, otherId]) => other !== name && otherId === alone)).toBe(
            true,
          );
        }
      }),
    );
  });

  it("never gives tools of different servers the same id", () => {
    fc.assert(
      fc.property(serverName, serverName, toolName, toolName, (s1, s2, t1, t2) => {
        fc.pre(s1 !== s2);
        expect(mcpToolId(s1, t1)).not.toBe(mcpToolId(s2, t2));
      }),
    );
  });
});
