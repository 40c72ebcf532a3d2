import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { renderKeyPath } from "../../src/core/config/errors.ts";
import { DEFAULT_MCP, isMcpServerName, mcpSection } from "../../src/core/config/mcp-section.ts";
import { problemsOf } from "../../src/core/config/problems.ts";
import { mcpFamilyTools } from "../../src/tools/mcp/index.ts";

/** The `mcp:` section of a YAML text, read as the config loader reads sections. */
function read(yaml: string) {
  return mcpSection.safeParse(parse(yaml) ?? {}, { reportInput: true });
}

/** The first problem, as the loader words it: `key.path: problem`. */
function problem(yaml: string): string {
  const result = read(yaml);
  if (result.success) throw new Error(`expected a problem in:\n${yaml}`);
  const [first] = result.error.issues.flatMap((issue) => problemsOf(issue));
  return `${renderKeyPath(first?.path ?? [])}: ${first?.problem}`;
}

describe("the mcp: config section", () => {
  it("reads the documented example", () => {
    const result = read(`
servers:
  filesystem:
    command: npx
    args: [-y, "@modelcontextprotocol/server-filesystem", /srv/shared, 8080]
    env: { LOG_LEVEL: warn }
    cwd: ./servers
  github:
    url: https://api.githubcopilot.com/mcp/
    headers: { Authorization: "Bearer \${GITHUB_TOKEN}" }
    defer: off
    call_timeout_ms: 120000
call_timeout_ms: 30000
description_max: 512
reconnect: { base_ms: 500, max_ms: 10000 }
`);
    expect(result.success && result.data).toEqual({
      servers: {
        filesystem: {
          transport: "stdio",
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv/shared", "8080"],
          env: { LOG_LEVEL: "warn" },
          cwd: "./servers",
          defer: true,
          ask: [],
        },
        github: {
          transport: "http",
          url: "https://api.githubcopilot.com/mcp/",
          headers: { Authorization: `Bearer \${GITHUB_TOKEN}` },
          defer: false,
          ask: [],
          callTimeoutMs: 120_000,
        },
      },
      callTimeoutMs: 30_000,
      connectTimeoutMs: DEFAULT_MCP.connectTimeoutMs,
      descriptionMax: 512,
      reconnect: { baseMs: 500, maxMs: 10_000 },
    });
  });

  it("reads an empty section as no servers with the default timeouts", () => {
    expect(read("").success && read("").data).toEqual(DEFAULT_MCP);
    expect(read("servers:").success && read("servers:").data).toEqual(DEFAULT_MCP);
  });

  it("refuses a server that is both a command and a URL, or neither", () => {
    expect(problem("servers: { x: { command: npx, url: 'https://a.example/mcp' } }")).toBe(
      "servers.x.url: a server has either command: (a local server over stdio) or url: (a remote server over streamable HTTP), not both. Keep one.",
    );
    expect(problem("servers: { x: { defer: on } }")).toBe(
      "servers.x: needs command: (a local server over stdio, e.g. command: npx) or url: (a remote server over streamable HTTP).",
    );
  });

  it("refuses settings of the other kind of server", () => {
    expect(problem("servers: { x: { command: npx, headers: { A: b } } }")).toBe(
      "servers.x.headers: headers: is for url: servers. A command server takes command:, args:, env:, cwd:.",
    );
    expect(problem("servers: { x: { url: 'https://a.example', env: { A: b } } }")).toBe(
      "servers.x.env: env: is for command: servers. A url: server takes url:, headers:.",
    );
  });

  it("refuses server names that cannot be part of a tool id", () => {
    for (const name of ["my.server", "a__b", "trailing_", "-dash", "x".repeat(25)]) {
      expect(problem(`servers: { "${name}": { command: npx } }`)).toMatch(
        /is not an MCP server name\. Server names become part of tool ids/,
      );
    }
  });

  it("points at a variable reference that does not close", () => {
    expect(
      problem(
        `servers: { github: { url: 'https://a.example', headers: { Authorization: 'Bearer \${GITHUB_TOKEN' } } }`,
      ),
    ).toBe(
      `servers.github.headers.Authorization: "\${GITHUB_TOKEN" opens \${ without a closing }. Write \${VARIABLE_NAME}, or $\${ for a literal \${.`,
    );
  });

  it("refuses a URL that is not http(s) and a list of arguments written as one string", () => {
    expect(problem("servers: { x: { url: 'ftp://a.example' } }")).toBe(
      'servers.x.url: "ftp://a.example" is not an http(s) URL. Write the server\'s streamable HTTP endpoint, e.g. https://example.com/mcp.',
    );
    expect(problem("servers: { x: { command: npx, args: '-y server' } }")).toMatch(
      /^servers\.x\.args: expected a list of arguments, e\.g\. \[-y, /,
    );
  });

  it("refuses a reconnect maximum below its base, and unknown keys with the keys it takes", () => {
    expect(problem("reconnect: { base_ms: 5000, max_ms: 1000 }")).toBe(
      "reconnect.max_ms: max_ms must be at least base_ms: delays double from base_ms up to max_ms.",
    );
    expect(problem("timeout: 5")).toMatch(
      /^timeout: unknown key "timeout"\. The mcp section takes servers:, call_timeout_ms:/,
    );
  });

  it("reads anything at all as a config or as problems, never a crash", () => {
    const entry = fc.record(
      {
        command: fc.oneof(fc.string(), fc.integer(), fc.anything()),
        url: fc.oneof(fc.webUrl(), fc.string(), fc.anything()),
        args: fc.oneof(fc.array(fc.oneof(fc.string(), fc.integer())), fc.anything()),
        env: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.anything()),
        headers: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.anything()),
        defer: fc.oneof(fc.boolean(), fc.constantFrom("on", "off", "maybe")),
        call_timeout_ms: fc.oneof(fc.integer(), fc.double(), fc.anything()),
      },
      { requiredKeys: [] },
    );
    const section = fc.oneof(
      fc.record(
        {
          servers: fc.oneof(
            fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("github", "__proto__")), entry),
            fc.anything(),
          ),
          call_timeout_ms: fc.anything(),
          description_max: fc.oneof(fc.integer(), fc.anything()),
          reconnect: fc.oneof(
            fc.record({ base_ms: fc.integer(), max_ms: fc.integer() }, { requiredKeys: [] }),
            fc.anything(),
          ),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    fc.assert(
      fc.property(section, (input) => {
        const result = mcpSection.safeParse(input);
        if (!result.success) {
          for (const issue of result.error.issues) {
            for (const found of problemsOf(issue)) expect(found.problem).not.toBe("");
          }
          return;
        }
        for (const [name, server] of Object.entries(result.data.servers)) {
          expect(isMcpServerName(name)).toBe(true);
          expect(server.transport === "stdio" ? server.command : server.url).not.toBe("");
        }
        expect(result.data.reconnect.baseMs).toBeLessThanOrEqual(result.data.reconnect.maxMs);
      }),
    );
  });
});

describe("an MCP server's approval", () => {
  const server = (extra: string) =>
    read(`servers:\n  github:\n    url: https://example.com/mcp\n${extra}`);
  const askOf = (extra: string) => {
    const result = server(extra);
    if (!result.success) throw new Error(result.error.message);
    return result.data.servers.github?.ask;
  };

  it("asks for no tool by default, every tool with approval: ask, or the tools listed under ask:", () => {
    expect(askOf("")).toEqual([]);
    expect(askOf("    approval: ask\n")).toBe("all");
    expect(askOf("    approval: on\n")).toEqual([]);
    expect(askOf("    ask: [create_issue, delete_repo, create_issue]\n")).toEqual([
      "create_issue",
      "delete_repo",
    ]);
  });

  it("names the offending value and the fix", () => {
    expect(
      problem(`servers:\n  github:\n    url: https://example.com/mcp\n    approval: always\n`),
    ).toBe(
      'servers.github.approval: "always" is not a server\'s approval. Write approval: ask (every tool of the server asks first), or list some under ask:, e.g. ask: [create_issue].',
    );
    expect(
      problem(`servers:\n  github:\n    url: https://example.com/mcp\n    ask: create_issue\n`),
    ).toBe(
      'servers.github.ask: expected a list of the server\'s tool names, e.g. ask: [create_issue, delete_repo], found "create_issue". For every tool of the server, write approval: ask.',
    );
    expect(
      problem(
        `servers:\n  github:\n    url: https://example.com/mcp\n    approval: ask\n    ask: [create_issue]\n`,
      ),
    ).toBe(
      "servers.github.ask: approval: ask already makes every tool of this server ask first. Drop ask:, or drop approval: to ask for only the tools listed.",
    );
    expect(
      problem(`servers:\n  github:\n    url: https://example.com/mcp\n    asks: []\n`),
    ).toContain("and defer:, call_timeout_ms:, approval: and ask:.");
  });

  it("marks the family's tools approval: ask without changing their wire bytes", () => {
    const listed = [
      { name: "create_issue", inputSchema: { type: "object" as const } },
      { name: "list_issues", inputSchema: { type: "object" as const } },
    ];
    const call = async () => "ok";
    const plain = mcpFamilyTools(
      listed,
      { server: "github", defer: true, descriptionMax: 500 },
      call,
    );
    const some = mcpFamilyTools(
      listed,
      { server: "github", defer: true, descriptionMax: 500, ask: ["create_issue", "gone_tool"] },
      call,
    );
    const all = mcpFamilyTools(
      listed,
      { server: "github", defer: true, descriptionMax: 500, ask: "all" },
      call,
    );
    expect(some.tools.map((t) => [t.id, t.approval])).toEqual([
      ["mcp__github__create_issue", "ask"],
      ["mcp__github__list_issues", undefined],
    ]);
    expect(some.unknownAsk).toEqual(["gone_tool"]);
    expect(all.tools.every((t) => t.approval === "ask")).toBe(true);
    expect(some.tools.map((t) => t.wire)).toEqual(plain.tools.map((t) => t.wire));
  });
});
