import { type ParseArgsConfig, parseArgs } from "node:util";
import type { SwitchyardConfig } from "../core/config/index.ts";
import { EMPTY_CONFIG, parseConfig } from "../platforms/config.ts";
import { configPath } from "../runtime/config-file.ts";

/** What a `switchyard` subcommand gets from the shell: the environment, file reads, output. */
export interface CliEnv {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: (file: string) => string;
  readonly stdout?: (text: string) => void;
  readonly stderr?: (text: string) => void;
}

/** The options every inspecting subcommand takes: the config file, and its help. */
const COMMON_OPTIONS = {
  config: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

type SubcommandOptions = NonNullable<ParseArgsConfig["options"]>;

/** What `parseArgs` reads from a subcommand's options plus the common ones. */
type SubcommandValues<O extends SubcommandOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof COMMON_OPTIONS & O; strict: true }>
>["values"];

/** A subcommand's arguments read, and where it writes. */
export interface Subcommand<O extends SubcommandOptions> {
  readonly values: SubcommandValues<O>;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/**
 * Reads a subcommand's arguments (its own options plus `--config` and
 * `--help`) and hands back where it writes; `help` is printed and
 * `undefined` returned when it was asked for.
 */
export function startSubcommand<const O extends SubcommandOptions>(
  argv: string[],
  io: CliEnv,
  help: string,
  options: O,
): Subcommand<O> | undefined {
  const out = io.stdout ?? ((t: string) => void process.stdout.write(t));
  const err = io.stderr ?? ((t: string) => void process.stderr.write(t));
  const { values } = parseArgs<{
    args: string[];
    options: typeof COMMON_OPTIONS & O;
    strict: true;
  }>({ args: argv, options: { ...COMMON_OPTIONS, ...options }, strict: true });
  if ((values as { help?: boolean }).help) {
    out(`${help}\n`);
    return undefined;
  }
  return { values, out, err };
}

/** The config file `--config` (else $SWITCHYARD_CONFIG, else ./switchyard.yaml) names, read; none is the empty config. */
export function readCliConfig(
  flag: string | undefined,
  io: CliEnv,
): { readonly file: string | undefined; readonly config: SwitchyardConfig } {
  const file = configPath(flag, io.env as NodeJS.ProcessEnv);
  return { file, config: file === undefined ? EMPTY_CONFIG : parseConfig(io.readFile(file), file) };
}
