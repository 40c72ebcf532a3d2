import { z } from "zod";
import { EnvTemplateError, parseEnvTemplate } from "./env-template.ts";
import { describeValue } from "./errors.ts";
import { flag } from "./flag.ts";
import { everyKey } from "./key-check.ts";
import { checkedBy } from "./parser-issue.ts";

/**
 * The `servers:` map of the `mcp:` section: each entry a local command
 * (spoken to over stdio) or a remote URL (streamable HTTP). See
 * `mcp-section.ts` for the whole section.
 */

interface McpServerCommon {
  /** Ship only the tools' names until discovery loads them (the default: MCP servers bring many tools). */
  readonly defer: boolean;
  /**
   * Which of the server's tools ask first by default (`approval: "ask"` on
   * each): `all` (`approval: ask`), or the server's own tool names listed
   * under `ask:`; empty: none. A person's `on` for the tool or `mcp:<server>`
   * lifts it, as for any tool's own default.
   */
  readonly ask: "all" | readonly string[];
  /** Overrides `call_timeout_ms` for this server. */
  readonly callTimeoutMs?: number;
}

/** A local server the bot starts and speaks to over stdin/stdout. */
export interface McpStdioServerConfig extends McpServerCommon {
  readonly transport: "stdio";
  readonly command: string;
  readonly args: readonly string[];
  /** Added to a small safe default environment (PATH, HOME, ...); values may use `${NAME}`. */
  readonly env: Readonly<Record<string, string>>;
  /** As written; a relative folder is resolved against the config file's folder. */
  readonly cwd?: string;
}

/** A remote server over streamable HTTP. */
export interface McpHttpServerConfig extends McpServerCommon {
  readonly transport: "http";
  /** May use `${NAME}`. */
  readonly url: string;
  /** Sent with every request; values may use `${NAME}`. */
  readonly headers: Readonly<Record<string, string>>;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/**
 * Server names become part of tool ids, `mcp__<server>__<tool>`, which allow
 * only letters, digits, "_" and "-" (64 at most). No "__" inside and no "_" at
 * the end, so the server part of an id is never ambiguous; at most 24
 * characters, so tool names keep room.
 */
export const MCP_SERVER_NAME_RULE =
  'up to 24 letters, digits, "-" and "_", starting with a letter or digit, without "__" and not ending in "_"';

export function isMcpServerName(name: string): boolean {
  return (
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,23}$/.test(name) && !name.includes("__") && !name.endsWith("_")
  );
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const COMMON_KEYS = "defer:, call_timeout_ms:, approval: and ask:";
const STDIO_KEYS = "command:, args:, env:, cwd:";
const HTTP_KEYS = "url:, headers:";

/** A duration in whole milliseconds, at most a day. */
export const millis = (what: string) =>
  z
    .number({
      error: (iss) => `expected a number of milliseconds, found ${describeValue(iss.input)}.`,
    })
    .int({ error: `expected whole milliseconds for ${what}, e.g. 60000.` })
    .min(1, { error: `${what} must be at least 1 ms.` })
    .max(86_400_000, { error: `${what} must be at most a day (86400000 ms).` });

/** A YAML scalar read as the string it was written as (`8080`, `true`). */
const scalarText = (what: string) =>
  z.preprocess(
    (value) => (typeof value === "number" || typeof value === "boolean" ? String(value) : value),
    z.string({ error: (iss) => `expected ${what}, found ${describeValue(iss.input)}.` }),
  );

/** A value that may use `${NAME}`; a broken reference fails here, at startup. */
const templated = (what: string) =>
  scalarText(what).superRefine(checkedBy(parseEnvTemplate, EnvTemplateError));

const args = z.array(scalarText("an argument"), {
  error: (iss) =>
    `expected a list of arguments, e.g. [-y, "@modelcontextprotocol/server-filesystem", /srv/shared], found ${describeValue(iss.input)}.`,
});

const envMap = z
  .record(z.string(), templated("a value"), {
    error: (iss) =>
      `expected a map of variables, e.g. { LOG_LEVEL: warn, API_KEY: "\${API_KEY}" }, found ${describeValue(iss.input)}.`,
  })
  .superRefine(
    everyKey(
      (name) => name !== "" && !name.includes("=") && !name.includes("\0"),
      "is not an environment variable name.",
    ),
  );

const headerMap = z
  .record(z.string(), templated("a header value"), {
    error: (iss) =>
      `expected a map of headers, e.g. { Authorization: "Bearer \${GITHUB_TOKEN}" }, found ${describeValue(iss.input)}.`,
  })
  .superRefine(
    everyKey(
      (name) => HEADER_NAME.test(name),
      'is not an HTTP header name. Use letters, digits and "-", e.g. Authorization.',
    ),
  );

const url = templated("a URL").superRefine((value, ctx) => {
  // A URL built from variables is checked when it is filled in, at connect time.
  if (value.includes("${")) return;
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol === "http:" || parsed?.protocol === "https:") return;
  ctx.addIssue({
    code: "custom",
    message: `${describeValue(value)} is not an http(s) URL. Write the server's streamable HTTP endpoint, e.g. https://example.com/mcp.`,
  });
});

/** `approval: ask` (every tool of the server asks first) or `on` (the default: none does). */
const approval = z.preprocess(
  (value) => (typeof value === "string" ? value.trim().toLowerCase() : value),
  z.enum(["ask", "on"], {
    error: (iss) =>
      `${describeValue(iss.input)} is not a server's approval. Write approval: ask (every tool of the server asks first), or list some under ask:, e.g. ask: [create_issue].`,
  }),
);

/** `ask: [create_issue, delete_repo]`: the server's own tool names, as its tools/list gives them. */
const askList = z.array(
  z
    .string({
      error: (iss) =>
        `expected a tool name as the server lists it, e.g. create_issue, found ${describeValue(iss.input)}.`,
    })
    .min(1, {
      error: "is empty. Write the tool's name as the server lists it, e.g. create_issue.",
    }),
  {
    error: (iss) =>
      `expected a list of the server's tool names, e.g. ask: [create_issue, delete_repo], found ${describeValue(iss.input)}. For every tool of the server, write approval: ask.`,
  },
);

const serverEntry = z
  .strictObject(
    {
      command: scalarText("a command").optional(),
      args: args.optional(),
      env: z.preprocess((value) => value ?? {}, envMap).optional(),
      cwd: scalarText("a folder").optional(),
      url: url.optional(),
      headers: z.preprocess((value) => value ?? {}, headerMap).optional(),
      defer: flag.optional(),
      call_timeout_ms: millis("call_timeout_ms").optional(),
      approval: approval.optional(),
      ask: askList.optional(),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `unknown key ${JSON.stringify(iss.keys[0])}. A server takes ${STDIO_KEYS} (a local command) or ${HTTP_KEYS} (a remote server), and ${COMMON_KEYS}.`
          : `expected a map such as { command: npx, args: [...] } or { url: https://... }, found ${describeValue(iss.input)}.`,
    },
  )
  .superRefine((entry, ctx) => {
    const local = entry.command !== undefined;
    const remote = entry.url !== undefined;
    if (local && remote) {
      ctx.addIssue({
        code: "custom",
        path: ["url"],
        message:
          "a server has either command: (a local server over stdio) or url: (a remote server over streamable HTTP), not both. Keep one.",
      });
    } else if (!local && !remote) {
      ctx.addIssue({
        code: "custom",
        message:
          "needs command: (a local server over stdio, e.g. command: npx) or url: (a remote server over streamable HTTP).",
      });
    } else if (local && entry.command?.trim() === "") {
      ctx.addIssue({
        code: "custom",
        path: ["command"],
        message: "is empty. Write the program to start, e.g. command: npx.",
      });
    }
    if (entry.approval === "ask" && entry.ask !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["ask"],
        message:
          "approval: ask already makes every tool of this server ask first. Drop ask:, or drop approval: to ask for only the tools listed.",
      });
    }
    const misplaced = local
      ? (["headers"] as const).filter((key) => entry[key] !== undefined)
      : (["args", "env", "cwd"] as const).filter((key) => entry[key] !== undefined);
    for (const key of misplaced) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: local
          ? `${key}: is for url: servers. A command server takes ${STDIO_KEYS}.`
          : `${key}: is for command: servers. A url: server takes ${HTTP_KEYS}.`,
      });
    }
  })
  .transform((entry): McpServerConfig => {
    const common = {
      defer: entry.defer ?? true,
      ask:
        entry.approval === "ask" ? ("all" as const) : Object.freeze([...new Set(entry.ask ?? [])]),
      ...(entry.call_timeout_ms !== undefined ? { callTimeoutMs: entry.call_timeout_ms } : {}),
    };
    if (entry.url !== undefined) {
      return Object.freeze({
        transport: "http",
        url: entry.url,
        headers: Object.freeze({ ...entry.headers }),
        ...common,
      });
    }
    return Object.freeze({
      transport: "stdio",
      command: entry.command ?? "",
      args: Object.freeze([...(entry.args ?? [])]),
      env: Object.freeze({ ...entry.env }),
      ...(entry.cwd !== undefined ? { cwd: entry.cwd } : {}),
      ...common,
    });
  });

/** `servers:`: server names to servers. */
export const mcpServersSection = z
  .record(z.string(), serverEntry, {
    error: (iss) =>
      `expected a map of server names to servers, e.g. filesystem: { command: npx, args: [...] }, found ${describeValue(iss.input)}.`,
  })
  .superRefine(
    everyKey(
      isMcpServerName,
      `is not an MCP server name. Server names become part of tool ids (mcp__<server>__<tool>): use ${MCP_SERVER_NAME_RULE}, e.g. github.`,
    ),
  );
