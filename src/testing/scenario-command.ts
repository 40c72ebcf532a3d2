/**
 * `switchyard test [files…]`: runs scenario files one after another and
 * prints what each step did, with a non-zero exit when anything failed.
 * The command lives with the test kit, not in src/cli, so that nothing a
 * bot runs in production loads the kit; bin/switchyard.js hands it `test`.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { realModelFromEnv } from "./real-model.ts";
import type { ForwardOptions } from "./recorded-model.ts";
import { runScenario, type ScenarioReport } from "./scenario-run.ts";

const USAGE = `Usage: switchyard test [FILE|FOLDER…] [--redis URL] [--timeout MS]
                       [--model scripted|real] [--cache FILE]

Runs scenario files (YAML) against your bot on fake platforms and a scripted
model. A folder runs every .yaml/.yml file in it; no argument runs ./scenarios.
Redis: --redis, else REDIS_URL, else a throwaway redis-server.

--model real   the model from OPENAI_API_KEY, OPENAI_BASE_URL and
               SWITCHYARD_MODEL instead of each scenario's scripted one
--cache FILE   with --model real: replies kept in FILE; a request found there
               is answered from it, so a recorded suite replays offline`;

export interface TestCommandIo {
  readonly print: (line: string) => void;
  /** Where --model real reads its model; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const VALUED = new Set(["--redis", "--timeout", "--model", "--cache"]);

/** Runs the command; resolves with the exit code (0 all passed, 1 a scenario failed, 2 a usage mistake). */
export async function runTestCommand(argv: readonly string[], io: TestCommandIo): Promise<number> {
  const files: string[] = [];
  let redis: string | undefined;
  let timeoutMs: number | undefined;
  let model = "scripted";
  let cache: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") {
      io.print(USAGE);
      return 0;
    }
    if (VALUED.has(arg)) {
      const value = argv[++i];
      if (value === undefined) {
        io.print(`${arg} needs a value.\n\n${USAGE}`);
        return 2;
      }
      if (arg === "--redis") redis = value;
      else if (arg === "--timeout") timeoutMs = Number(value);
      else if (arg === "--cache") cache = value;
      else model = value;
      continue;
    }
    if (arg.startsWith("-")) {
      io.print(`Unknown option "${arg}".\n\n${USAGE}`);
      return 2;
    }
    files.push(arg);
  }
  if (model !== "scripted" && model !== "real") {
    io.print(`--model is "scripted" or "real", not "${model}".\n\n${USAGE}`);
    return 2;
  }
  if (cache && model !== "real") {
    io.print(`--cache records a real model's replies: add --model real.\n\n${USAGE}`);
    return 2;
  }
  let realModel: ForwardOptions | undefined;
  if (model === "real") {
    try {
      realModel = realModelFromEnv(io.env ?? process.env, cache);
    } catch (error) {
      io.print((error as Error).message);
      return 2;
    }
  }
  let scenarios: string[];
  try {
    scenarios = (files.length > 0 ? files : ["scenarios"]).flatMap(expand);
  } catch (error) {
    io.print(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (scenarios.length === 0) {
    io.print(`No scenario files found in ${files.join(", ") || "./scenarios"}.`);
    return 2;
  }
  const reports: ScenarioReport[] = [];
  for (const file of scenarios) {
    const report = await runScenario(file, {
      ...(redis ? { redis } : {}),
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(realModel ? { realModel } : {}),
    });
    reports.push(report);
    for (const line of describe(report)) io.print(line);
  }
  const failed = reports.filter((r) => !r.passed).length;
  io.print(
    `\n${reports.length - failed} of ${reports.length} scenario${reports.length === 1 ? "" : "s"} passed${failed ? `, ${failed} failed` : ""}.`,
  );
  return failed > 0 ? 1 : 0;
}

/** A file as it is; a folder as its YAML files, sorted. */
function expand(path: string): string[] {
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    throw new Error(`No such file or folder: ${path}`);
  }
  if (!isFolder) return [path];
  return readdirSync(path)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(path, name));
}

/** A scenario's lines in the report: its verdict, each step, and each problem under its step. */
export function describe(report: ScenarioReport): string[] {
  const lines = [`${report.passed ? "PASS" : "FAIL"}  ${report.name}  (${report.file})`];
  for (const step of report.steps) {
    lines.push(`  ${step.problems.length === 0 ? "ok  " : "FAIL"}  ${step.label}`);
    for (const note of step.notes ?? []) lines.push(`          ${note}`);
    for (const problem of step.problems) lines.push(`          ${problem}`);
  }
  if (report.error) lines.push(`  error: ${report.error}`);
  return lines;
}

/** Run by bin/switchyard.js for `switchyard test …`. */
export async function main(argv: readonly string[]): Promise<void> {
  const code = await runTestCommand(argv, { print: (line) => process.stdout.write(`${line}\n`) });
  process.exitCode = code;
}
