import { dirname, resolve } from "node:path";
import { attachmentCapabilities } from "../core/attachments/capability-notice.ts";
import type { Capabilities } from "../core/availability/capabilities.ts";
import { EMPTY_INTENT } from "../core/availability/intent.ts";
import { runtimeLayer } from "../core/availability/runtime-spec.ts";
import { globalLayer } from "../core/config/index.ts";
import { freezeTurn } from "../core/loading/freeze.ts";
import { parseLoadMode } from "../core/loading/modes.ts";
import { type ContractReport, reportContract } from "../core/loading/report.ts";
import { WarnOnce } from "../core/logger.ts";
import { ToolRegistry } from "../core/tools/registry.ts";
import type { AnyTool } from "../core/tools/tool.ts";
import { Host } from "../runtime/host.ts";
import { loadPlugins, pluginSpecsFor } from "../runtime/plugins.ts";
import { modelConfiguredIn } from "../runtime/provider-env.ts";
import { type McpServerReport, mcpServerReports } from "../tools/mcp/server-report.ts";
import { type CliEnv, readCliConfig, startSubcommand } from "./cli-env.ts";

export type { CliEnv };

const HELP = `Usage: switchyard tools [options]

Resolves the tools one turn would get under the config and prints the contract:
what is resident, deferred and disabled (with the deciding scope or capability
reason), the token estimate per part and the contract hash.

Options:
  --config FILE      The config file (default: $SWITCHYARD_CONFIG, else ./switchyard.yaml if present)
  --tools SPEC       Runtime decisions (on, off or ask), e.g. 'web_search=off,mcp:github=ask' (default: $SWITCHYARD_TOOLS)
  --mode MODE        Load mode: full, default, minimal (pi), discover (omp)
  --registry demo    Use the benchmark registry (65 realistic tools) instead of the bot's own
  --plugin FILE|PACKAGE   Add a plugin's tools, as switchyard start does (repeatable; the config's plugins: load too)
  --json             Print JSON instead of a table
  -h, --help         This help`;

/** What `bench/demo-registry.ts` exports, as far as `--registry demo` needs it. */
interface DemoRegistry {
  demoTools(): AnyTool[];
  DEMO_CAPABILITIES: Capabilities;
}

/** `--registry demo` in an installed package, where bench/ is not shipped. */
export class DemoRegistryMissingError extends Error {
  override readonly name = "DemoRegistryMissingError";
}

/**
 * The benchmark registry lives in bench/, outside the package: the specifier is
 * built at run time so the build leaves bench/ out of dist/, and in an installed
 * package (or a built CLI without tsx) the option says so instead of crashing.
 */
async function loadDemoRegistry(): Promise<DemoRegistry> {
  const url = new URL("../../bench/demo-registry.ts", import.meta.url);
  try {
    return (await import(url.href)) as DemoRegistry;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // Missing (a package) or unloadable .ts (plain node, no tsx): anything else is a real bug.
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
    throw new DemoRegistryMissingError(
      `--registry demo reads the benchmark registry from bench/demo-registry.ts, which only a ` +
        `checkout of Switchyard has (run it there with ./bin/switchyard.js, through tsx); the ` +
        `installed package ships without bench/. (${(error as Error).message})`,
    );
  }
}

export async function runToolsCommand(argv: string[], io: CliEnv): Promise<number> {
  const started = startSubcommand(argv, io, HELP, {
    tools: { type: "string" },
    mode: { type: "string" },
    registry: { type: "string" },
    plugin: { type: "string", multiple: true },
    json: { type: "boolean", default: false },
  });
  if (started === undefined) return 0;
  const { values, out, err } = started;
  const mode = values.mode === undefined ? undefined : parseLoadMode(values.mode);
  const runtime = runtimeLayer(values.tools, io.env.SWITCHYARD_TOOLS, mode);
  const { file, config } = readCliConfig(values.config, io);

  let registry: ToolRegistry;
  let capabilities: Parameters<typeof freezeTurn>[3];
  let servers: McpServerReport[] = [];
  if (values.registry === "demo") {
    const demo = await loadDemoRegistry();
    registry = new ToolRegistry(demo.demoTools());
    capabilities = demo.DEMO_CAPABILITIES;
  } else if (values.registry === undefined) {
    // MCP servers are connected to list their tools, then closed again.
    const plugins = await loadPlugins(pluginSpecsFor(config.plugins, file, values.plugin));
    const host = new Host({
      env: io.env,
      config,
      // As a started bot says it: without a model, vision is off because there is none.
      modelConfigured: modelConfiguredIn(io.env),
      tools: plugins.flatMap((plugin) => plugin.tools ?? []),
      ...(file !== undefined ? { baseDir: dirname(resolve(file)) } : {}),
    });
    try {
      await host.start();
      registry = host.registry.snapshot();
      capabilities = host.capabilities();
      servers = mcpServerReports(host.mcp.servers(), host.registry, capabilities);
    } finally {
      await host.close();
    }
  } else {
    throw new Error(`--registry takes "demo" (the benchmark registry), not "${values.registry}".`);
  }

  const warnings: string[] = [];
  const contract = freezeTurn(
    registry,
    { global: globalLayer(config), runtime },
    EMPTY_INTENT,
    capabilities,
    {
      toolsets: config.toolsets,
      ...(config.agent.essential ? { essential: config.agent.essential } : {}),
      warnings: new WarnOnce({ warn: (message) => warnings.push(message) }),
    },
  );
  for (const warning of warnings) err(`warning: ${warning}\n`);
  const report = reportContract(contract, registry);
  out(
    values.json
      ? `${JSON.stringify({ ...jsonShape(report), mcp: servers, attachments: attachmentCapabilities(capabilities) }, null, 2)}\n`
      : renderReport(report) + renderServers(servers) + renderAttachments(capabilities),
  );
  return 0;
}

/** A server that never connected has no tools to list: this is where its reason shows. */
function renderServers(servers: readonly McpServerReport[]): string {
  if (servers.length === 0) return "";
  const width = Math.max(12, ...servers.map((s) => s.server.length)) + 2;
  const lines = servers.map(
    (s) =>
      `  ${s.server.padEnd(width)}${s.available ? `connected, ${s.tools} tools` : `not available: ${s.reason}`}`,
  );
  return `\nMCP servers (${servers.length})\n${lines.join("\n")}\n`;
}

/** What the bot does with images, voice notes and long documents: each capability and why not. */
function renderAttachments(capabilities: Capabilities): string {
  const lines = attachmentCapabilities(capabilities).map(
    (c) => `  ${c.name.padEnd(17)}${c.available ? "available" : `unavailable: ${c.reason}`}`,
  );
  return `\nAttachments\n${lines.join("\n")}\n`;
}

function jsonShape(report: ContractReport) {
  return {
    mode: report.mode,
    available: report.available,
    total: report.total,
    resident: report.resident,
    deferred: report.deferred,
    disabled: report.disabled,
    asking: report.asking,
    tokens: report.tokens,
    contractHash: report.contractHash,
  };
}

export function renderReport(report: ContractReport): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const listed = [...report.resident, ...report.disabled.map((d) => d.id)];
  const width = Math.max(12, ...listed.map((id) => id.length)) + 2;
  const lines = [
    `${report.available} of ${report.total} tools available`,
    `mode ${report.mode} · contract ${report.contractHash}`,
    "",
    `Resident (${report.resident.length}, ~${n(report.tokens.resident)} tokens)`,
    ...report.resident.map(
      (id) => `  ${id.padEnd(width)}~${n(report.tokens.perTool[id] ?? 0)} tokens`,
    ),
    "",
    report.mode === "minimal"
      ? `Not loaded (${report.deferred.length}; minimal mode has no discovery: /tools on <id> or another mode loads them)`
      : `Deferred (${report.deferred.length}, ~${n(report.tokens.catalog)} tokens in the catalog)`,
    ...wrap(report.deferred, 96).map((line) => `  ${line}`),
    "",
    ...(report.asking.length === 0
      ? []
      : [
          `Asks first (${report.asking.length}; on as above, each call waits for a person's approval)`,
          ...report.asking.map((a) => `  ${a.id.padEnd(width)}${a.reason}`),
          "",
        ]),
    `Disabled (${report.disabled.length})`,
    ...report.disabled.map(
      (d) =>
        `  ${d.id.padEnd(width)}${d.by === "capability" ? `unavailable: ${d.reason}` : d.reason}`,
    ),
    "",
    `On the wire: ~${n(report.tokens.resident + report.tokens.catalog)} tokens`,
  ];
  return `${lines.join("\n")}\n`;
}

/** Comma-separated ids, wrapped at `width` columns. */
function wrap(ids: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const [i, id] of ids.entries()) {
    const item = i < ids.length - 1 ? `${id},` : id;
    if (line !== "" && line.length + 1 + item.length > width) {
      lines.push(line);
      line = item;
    } else {
      line = line === "" ? item : `${line} ${item}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}
