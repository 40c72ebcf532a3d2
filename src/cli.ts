import { readConfigText } from "./bot/config-file.ts";
import { runAccessCommand } from "./cli/access.ts";
import { runDoctorCommand } from "./cli/doctor.ts";
import { runSkillsCommand } from "./cli/skills.ts";
import { runStartCommand } from "./cli/start.ts";
import { runToolsCommand } from "./cli/tools.ts";

const USAGE = `Usage: switchyard <command> [options]

Commands:
  tools    Show which tools a turn would get, and why: resident, deferred, disabled.
           switchyard tools [--config FILE] [--tools SPEC] [--mode MODE] [--registry demo] [--json]
  skills   List the skills the bot offers, what shadows what, and the skills block's token cost.
           switchyard skills [--config FILE] [--workspace PLATFORM:ID] [--json]
  access   Approve a pairing code, list who may talk to the bot, revoke an approval.
           switchyard access approve CODE | list | revoke PLATFORM:USER [--config FILE]
  start    Run the bot. With no platform credentials: the console channel on stdin/stdout.
           switchyard start [--role all|ingress|worker] [--config FILE] [--tools SPEC] [--mode MODE] [--plugin FILE|PACKAGE]
  doctor   Check a deployment: config, Redis, the model, each platform's token and scopes, MCP, web search.
           switchyard doctor [--config FILE]

Run "switchyard <command> --help" for a command's options.`;

/** A mistake in how the command was called: printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "start":
      return runStartCommand(rest, process.env);
    case "skills":
      return runSkillsCommand(rest, { env: process.env, readFile: readConfigText });
    case "access":
      return runAccessCommand(rest, { env: process.env, readFile: readConfigText });
    case "tools":
      return runToolsCommand(rest, { env: process.env, readFile: readConfigText });
    case "doctor":
      return runDoctorCommand(rest, {
        env: process.env,
        print: (line) => process.stdout.write(`${line}\n`),
      });
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`Unknown command "${command}".\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const err = error as Error;
    const known = err && typeof err === "object" && "name" in err && err.name !== "Error";
    process.stderr.write(`switchyard: ${known ? err.message : (err?.stack ?? String(err))}\n`);
    process.exitCode = 2;
  },
);
