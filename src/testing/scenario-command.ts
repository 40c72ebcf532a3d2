/**
 * `switchyard test [files…]`: runs scenario files one after another and
 * prints what each step did, with a non-zero exit when anything failed.
 * The command lives with the test kit, not in src/cli, so that nothing a
 * bot runs in production loads the kit; bin/switchyard.js hands it `test`.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { runScenario, type ScenarioReport } from "./scenario-run.ts";

const USAGE = `Usage: switchyard test [FILE|FOLDER…] [--redis URL] [--timeout MS]

Runs scenario files (YAML) against your bot on fake platforms and a scripted
model. A folder runs every .yaml/.yml file in it; no argument runs ./scenarios.
Redis: --redis, else REDIS_URL, else a throwaway redis-server.`;

export interface TestCommandIo {
  readonly print: (line: string) => void;
}

/** Runs the command; resolves with the exit code (0 all passed, 1 a scenario failed, 2 a usage mistake). */
export async function runTestCommand(argv: readonly string[], io: TestCommandIo): Promise<number> {
  const files: string[] = [];
  let redis: string | undefined;
  let timeoutMs: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") {
      io.print(USAGE);
      return 0;
    }
    if (arg === "--redis" || arg === "--timeout") {
      const value = argv[++i];
      if (value === undefined) {
        io.print(`${arg} needs a value.\n\n${USAGE}`);
        return 2;
      }
      if (arg === "--redis") redis = value;
      else timeoutMs = Number(value);
      continue;
    }
    if (arg.startsWith("-")) {
      io.print(`Unknown option "${arg}".\n\n${USAGE}`);
      return 2;
    }
    files.push(arg);
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
