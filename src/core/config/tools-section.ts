import { z } from "zod";
import { isWellFormedKey, MCP_KEY } from "../availability/keys.ts";
import { describeValue, type KeyPath, renderKeyPath } from "./errors.ts";
import { flag } from "./flag.ts";

/**
 * `mcp:` is either the aggregate switch for every MCP family (`mcp: off`) or a
 * map of servers (`mcp: { github: on }`), which flattens to `mcp:github`.
 */
const mcpServers = z.record(z.string(), flag).superRefine((servers, ctx) => {
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

const mcpSwitch = z.union([flag, mcpServers], {
  error: (iss) =>
    `${describeValue(iss.input)} is neither on/off/true/false nor a map of MCP servers. Write mcp: off, or name servers, e.g. mcp: { github: on }.`,
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
 * becomes `"mcp:github": true`. A key set twice to different values (once
 * flat, once nested) is an error rather than a silent pick.
 */
export const toolsSection = z
  .object(
    { [MCP_KEY]: mcpSwitch.optional() },
    {
      error: (iss) =>
        `expected a map of tool ids to on/off, found ${describeValue(iss.input)}. Put one "tool_id: on" line per tool under tools:.`,
    },
  )
  .catchall(flag)
  .superRefine((tools, ctx) => {
    for (const key of Object.keys(tools)) {
      if (!isWellFormedKey(key))
        ctx.addIssue({ code: "custom", path: [key], message: keyProblem(key) });
    }
  })
  .transform((tools, ctx) => {
    const keys: Record<string, boolean> = {};
    const setAt = new Map<string, KeyPath>();
    const set = (key: string, on: boolean, path: KeyPath) => {
      const earlier = setAt.get(key);
      if (earlier !== undefined && keys[key] !== on) {
        ctx.addIssue({
          code: "custom",
          path: [...path],
          message: `sets ${key} ${on ? "on" : "off"}, but tools.${renderKeyPath(earlier)} sets it ${on ? "off" : "on"}. Keep one of the two.`,
        });
        return;
      }
      keys[key] = on;
      setAt.set(key, path);
    };
    for (const [key, value] of Object.entries(tools)) {
      if (typeof value === "boolean") set(key, value, [key]);
      else if (value !== undefined) {
        for (const [server, on] of Object.entries(value))
          set(`${MCP_KEY}:${server}`, on, [key, server]);
      }
    }
    return keys;
  });
