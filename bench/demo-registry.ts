/**
 * A realistic registry for benchmarks, tests and `switchyard tools --registry demo`.
 *
 * `demoTools()` is what a well-equipped chat bot carries: a few dozen built-in
 * tools with the long descriptions and detailed parameters real ones have, plus
 * two MCP servers (GitHub and filesystem) whose JSON Schemas follow the real
 * servers' `tools/list` answers. `syntheticTools(n)` scales the same shapes to
 * registries of hundreds or thousands of tools.
 *
 * Nothing here does I/O: every `execute` returns a fixed, plausible string, so
 * a test that runs a tool gets the same answer every time.
 */
import type { AnyTool } from "../src/core/tools/tool.ts";
import { builtinTools } from "./demo/builtins.ts";
import { filesystemMcpTools } from "./demo/mcp-filesystem.ts";
import { githubMcpTools } from "./demo/mcp-github.ts";

export { syntheticTools } from "./demo/synthetic.ts";

/** Whether the host has a capability, and if not, what a person is told. */
export type CapabilityStatus = { available: true } | { available: false; reason: string };

/** The host the demo registry pretends to run on: most capabilities present, a few missing. */
export const DEMO_CAPABILITIES: Readonly<Record<string, CapabilityStatus>> = Object.freeze({
  web_search_provider: { available: true },
  network: { available: true },
  weather_api: { available: true },
  calendar: { available: true },
  database: { available: true },
  jira: { available: true },
  github_token: { available: true },
  document_parser: { available: true },
  image_model: { available: true },
  sandbox: { available: false, reason: "no code sandbox configured" },
  vision_model: { available: false, reason: "the configured model has no vision support" },
});

/** A fresh array of the demo tools: built-ins, then the GitHub and filesystem MCP servers. */
export function demoTools(): AnyTool[] {
  return [...builtinTools(), ...githubMcpTools(), ...filesystemMcpTools()];
}
