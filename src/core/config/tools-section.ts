import { z } from "zod";
import { isWellFormedKey, type KeyValue, keyWord, MCP_KEY } from "../availability/keys.ts";
import { describeValue, type KeyPath, renderKeyPath } from "./errors.ts";
import { keyFlag } from "./flag.ts";

/**
 * `mcp:` is either the aggregate switch for every MCP family (`mcp: off`,
 * `mcp: ask`) or a map of servers (`mcp: { github: ask }`), which flattens
 * to `mcp:github`.
 */
const mcpServers = z.record(z.string(), keyFlag).superRefine((servers, ctx) => {
  for (const server of Object.keys(servers)) {
    if (isWellFormedKey(`${MCP_KEY}:${server}`)) continue;
    ctx.addIssue({
      code: "custom",
      path: [server],
      message:
        server === "*"
          ? '"*" is not a server name. To switch every MCP server, write mcp: off (or mcp: on).'
          : `${describeValue(server)} is not an MCP server name. Use letters, digits, "_", "." and "-", e.g. github: off.`,
    });
  }
});

const mcpSwitch = z.union([keyFlag, mcpServers], {
  error: (iss) =>
    `${describeValue(iss.input)} is neither on/off/ask/true/false nor a map of MCP servers. Write mcp: off, or name servers, e.g. mcp: { github: ask }.`,
});

function keyProblem(key: string): string {
  if (key === "*")
    return '"*" is a toolset entry, not a key. To switch every tool, write all: off (or all: on).';
  if (key === "mcp:*")
    return '"mcp:*" is a toolset entry, not a key. To switch every MCP server, write mcp: off (or mcp: on).';
  return `${describeValue(key)} is not a tool id, "mcp", "mcp:<server>" or "all". Tool ids use letters, digits, "_" and "-", e.g. web_search: on.`;
}

/**
 * The global scope's key decisions, flattened: `mcp: { github: true }`
 * becomes `"mcp:github": true`. Each value is on, off or `ask` (on, each
 * call approved first). A key set twice to different values (once flat,
 * once nested) is an error rather than a silent pick.
 */
export const toolsSection = z
  .object(
    { [MCP_KEY]: mcpSwitch.optional() },
    {
      error: (iss) =>
        `expected a map of tool ids to on/off/ask, found ${describeValue(iss.input)}. Put one "tool_id: on" line per tool under tools:.`,
    },
  )
  .catchall(keyFlag)
  .superRefine((tools, ctx) => {
    for (const key of Object.keys(tools)) {
      if (!isWellFormedKey(key))
        ctx.addIssue({ code: "custom", path: [key], message: keyProblem(key) });
    }
  })
  .transform((tools, ctx) => {
    const keys: Record<string, KeyValue> = {};
    const setAt = new Map<string, KeyPath>();
    const set = (key: string, value: KeyValue, path: KeyPath) => {
      const earlier = setAt.get(key);
      const before = keys[key];
      if (earlier !== undefined && before !== undefined && before !== value) {
        ctx.addIssue({
          code: "custom",
          path: [...path],
          message: `sets ${key} ${keyWord(value)}, but tools.${renderKeyPath(earlier)} sets it ${keyWord(before)}. Keep one of the two.`,
        });
        return;
      }
      keys[key] = value;
      setAt.set(key, path);
    };
    for (const [key, value] of Object.entries(tools)) {
      if (typeof value === "boolean" || typeof value === "string") set(key, value, [key]);
      else if (value !== undefined) {
        for (const [server, on] of Object.entries(value))
          set(`${MCP_KEY}:${server}`, on, [key, server]);
      }
    }
    return keys;
  });
