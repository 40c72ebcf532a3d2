import { createHash } from "node:crypto";
import { compareIds } from "../../core/tools/registry.ts";
import { TOOL_ID_PATTERN } from "../../core/tools/tool.ts";

/**
 * How an MCP server's tool names become Switchyard tool ids.
 *
 * A tool `read_file` of server `filesystem` is `mcp__filesystem__read_file`.
 * Providers accept only `[A-Za-z0-9_-]{1,64}` as function names, and MCP
 * servers name tools freely (`get-tiny-image`, `repo.search`, names of 80
 * characters), so a name that does not fit is sanitized, cut, and given a
 * short hash of the original: `mcp__github__repo_search_3f9a1c2e`. The same
 * server and name give the same id in every process, so the tools array's
 * bytes survive restarts and reconnects. The hub keeps the mapping so a call
 * reaches the tool by its original name.
 */

const HASH_CHARS = 8;
const MAX_ID = 64;

/** `mcp__<server>__`: every id of a server starts with it. */
export function mcpIdPrefix(server: string): string {
  return `mcp__${server}__`;
}

/** The family (and capability) of a server's tools: `mcp:<server>`. */
export function mcpFamily(server: string): string {
  return `mcp:${server}`;
}

/**
 * The id of one tool, without regard to its neighbours. `salt` is only set
 * by {@link mcpToolIds} to step around a collision.
 */
export function mcpToolId(server: string, tool: string, salt = 0): string {
  const prefix = mcpIdPrefix(server);
  const plain = `${prefix}${tool}`;
  if (salt === 0 && TOOL_ID_PATTERN.test(plain)) return plain;
  const hash = createHash("sha256")
    .update(`${server}\u0000${tool}\u0000${salt}`)
    .digest("hex")
    .slice(0, HASH_CHARS);
  const room = Math.max(0, MAX_ID - prefix.length - 1 - HASH_CHARS);
  const stem = tool
    .replace(/[^A-Za-z0-9_-]+/g, "_")
    .slice(0, room)
    .replace(/_+$/, "");
  return `${prefix}${stem}_${hash}`;
}

/**
 * The ids of all of a server's tools, as a map from tool name to id.
 *
 * Names that fit keep their plain id. The others are hashed, in sorted
 * order, stepping the salt past any id already taken, so distinct names
 * always get distinct ids and the result does not depend on the order the
 * server listed them in.
 */
export function mcpToolIds(server: string, names: Iterable<string>): Map<string, string> {
  const sorted = [...new Set(names)].sort(compareIds);
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  const hashed: string[] = [];
  for (const name of sorted) {
    const id = mcpToolId(server, name);
    if (id === mcpIdPrefix(server) + name) {
      ids.set(name, id);
      taken.add(id);
    } else {
      hashed.push(name);
    }
  }
  for (const name of hashed) {
    let salt = 0;
    let id = mcpToolId(server, name);
    while (taken.has(id)) id = mcpToolId(server, name, ++salt);
    ids.set(name, id);
    taken.add(id);
  }
  return new Map([...ids].sort(([a], [b]) => compareIds(a, b)));
}
