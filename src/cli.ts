/*
 * Each command's module is imported when that command runs: `switchyard
 * --help` (and a mistyped command) answers without loading the bot, its
 * platform SDKs or Redis client, and `switchyard tools` without the channels.
 */

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
  test     Run scenario files against your bot on fake platforms and a scripted model (switchyard/testing).
           switchyard test [FILE|FOLDER...] [--redis URL] [--timeout MS] [--model scripted|real] [--cache FILE]

Run "switchyard <command> --help" for a command's options.`;

/** A mistake in how the command was called: printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "start": {
      const { runStartCommand } = await import("./cli/start.ts");
      return runStartCommand(rest, process.env);
    }
    case "skills": {
      const [{ runSkillsCommand }, readFile] = await Promise.all([
        import("./cli/skills.ts"),
        configReader(),
      ]);
      return runSkillsCommand(rest, { env: process.env, readFile });
    }
    case "access": {
      const [{ runAccessCommand }, readFile] = await Promise.all([
        import("./cli/access.ts"),
        configReader(),
      ]);
      return runAccessCommand(rest, { env: process.env, readFile });
    }
    case "tools": {
      const [{ runToolsCommand }, readFile] = await Promise.all([
        import("./cli/tools.ts"),
        configReader(),
      ]);
      return runToolsCommand(rest, { env: process.env, readFile });
    }
    case "doctor": {
      const { runDoctorCommand } = await import("./cli/doctor.ts");
      return runDoctorCommand(rest, {
        env: process.env,
        print: (line) => process.stdout.write(`${line}\n`),
      });
    }
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

/** How the commands that read a config file read it. */
async function configReader(): Promise<(path: string) => string> {
  return (await import("./runtime/config-file.ts")).readConfigText;
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
