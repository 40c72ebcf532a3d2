import type { Document, LineCounter, YAMLError } from "yaml";
import { type LoggerPort, silentLogger } from "../logger.ts";
import { yaml } from "../yaml.ts";
import { firstDuplicateKey } from "./duplicate-keys.ts";
import { ConfigError, type ConfigWarning, renderKeyPath, where } from "./errors.ts";
import { LineIndex } from "./locate.ts";
import { problemsOf } from "./problems.ts";
import type { ConfigFormat, SwitchyardConfig } from "./schema.ts";
import { configTooLarge, MAX_CONFIG_BYTES } from "./size.ts";

export interface ConfigReading {
  readonly config: SwitchyardConfig;
  /** Things that were ignored: unknown sections, YAML warnings. */
  readonly warnings: readonly ConfigWarning[];
}

export interface ConfigReload {
  readonly config: SwitchyardConfig;
  readonly ok: boolean;
  readonly error?: ConfigError;
}

/** The three ways a config file's text is read, for one {@link ConfigFormat}. */
export interface ConfigReader {
  /**
   * Reads a config file's text. `file` is only used in messages. Throws
   * {@link ConfigError} and nothing else for any text that is not a usable
   * config; an empty file is the format's `empty` config (`EMPTY_CONFIG`).
   * Text over {@link MAX_CONFIG_BYTES} is refused before it is parsed.
   */
  readonly readConfig: (text: string, file: string) => ConfigReading;
  /**
   * Reads the config at startup: a broken file throws {@link ConfigError},
   * which the caller shows and exits on. Warnings go to `logger`.
   *
   * @example
   * const config = parseConfig(await readFile(path, "utf8"), "switchyard.yaml", logger);
   * const global = globalLayer(config);
   */
  readonly parseConfig: (text: string, file: string, logger?: LoggerPort) => SwitchyardConfig;
  /**
   * Re-reads a config file that changed while running. A broken file must not
   * take the bot down or reset what people configured, so it warns once and
   * keeps `previous`; a good file replaces it.
   */
  readonly reloadConfig: (
    previous: SwitchyardConfig,
    text: string,
    file: string,
    logger: LoggerPort,
  ) => ConfigReload;
}

/**
 * The reader of files in `format`; the layer that knows the platforms makes
 * the one the bot uses (`EMPTY_CONFIG`, `parseConfig` and the rest).
 */
export function configReader(format: ConfigFormat): ConfigReader {
  return Object.freeze({
    readConfig: (text: string, file: string) => readConfig(format, text, file),
    parseConfig: (text: string, file: string, logger: LoggerPort = silentLogger) =>
      parseConfig(format, text, file, logger),
    reloadConfig: (previous: SwitchyardConfig, text: string, file: string, logger: LoggerPort) =>
      reloadConfig(format, previous, text, file, logger),
  });
}

function readConfig(format: ConfigFormat, text: string, file: string): ConfigReading {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_CONFIG_BYTES) throw configTooLarge(file, bytes);
  checkNesting(text, file);
  const { LineCounter, parseDocument } = yaml();
  const counter = new LineCounter();
  // logLevel "error": yaml would otherwise print warnings to the process itself.
  // uniqueKeys off: yaml's own check is quadratic in a map's size; firstDuplicateKey is not.
  const doc = parseDocument(text, { lineCounter: counter, logLevel: "error", uniqueKeys: false });
  const syntax = doc.errors[0];
  const duplicate = firstDuplicateKey(doc);
  if (duplicate !== undefined && (syntax === undefined || duplicate < syntax.pos[0]))
    throw duplicateKeyError(counter.linePos(duplicate).line, file);
  if (syntax !== undefined) throw syntaxError(syntax, file);
  const warnings = doc.warnings.map((warning) => yamlWarning(warning, file));

  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // Unresolved or runaway aliases only surface when the values are built.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      file,
      "",
      aliasLine(doc, counter),
      `${reason}. Define each anchor (&name) before its alias (*name), and do not nest aliases deeply.`,
    );
  }
  if (raw === null || raw === undefined) return { config: format.empty, warnings };

  const lines = new LineIndex(doc, counter);
  const parsed = format.schema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    const located = parsed.error.issues
      .flatMap((issue) => problemsOf(issue))
      .map((p) => ({ ...p, line: lines.lineOf(p.path) }));
    // The first problem in the file: a person fixes them top to bottom.
    located.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    const first = located[0];
    if (first === undefined)
      throw new ConfigError(file, "", undefined, "the file is not a valid config.");
    throw new ConfigError(file, renderKeyPath(first.path), first.line, first.problem);
  }

  for (const key of Object.keys(raw as object)) {
    if (format.sections.includes(key)) continue;
    const line = lines.lineOf([key]);
    warnings.push({
      file,
      key,
      line,
      message: `${where(file, line)}: unknown section ${JSON.stringify(key)} is ignored. Known sections: ${[...format.sections].sort().join(", ")}.`,
    });
  }
  return { config: parsed.data, warnings };
}

/** A config nests a few levels; the YAML parser overflows its stack somewhere past a thousand. */
const MAX_NESTING = 64;

/**
 * Refuses pathologically nested text before the parser sees it, so a hostile
 * or corrupted file is a ConfigError, never a crashed process.
 */
function checkNesting(text: string, file: string): void {
  let brackets = 0;
  let deepest = 0;
  let lineNumber = 1;
  let deepLine = 1;
  let atLineStart = true;
  let indent = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      lineNumber++;
      atLineStart = true;
      indent = 0;
      continue;
    }
    if (atLineStart && (c === 32 || c === 45)) {
      // Leading spaces and "- " sequence markers both open a level.
      indent++;
      if (indent / 2 > deepest) {
        deepest = indent / 2;
        deepLine = lineNumber;
      }
      continue;
    }
    atLineStart = false;
    if (c === 91 || c === 123) {
      brackets++;
      if (brackets > deepest) {
        deepest = brackets;
        deepLine = lineNumber;
      }
    } else if ((c === 93 || c === 125) && brackets > 0) brackets--;
  }
  if (deepest > MAX_NESTING) {
    throw new ConfigError(
      file,
      "",
      deepLine,
      `the file nests deeper than ${MAX_NESTING} levels. A Switchyard config is a few levels deep: check that this is the right file.`,
    );
  }
}

function parseConfig(
  format: ConfigFormat,
  text: string,
  file: string,
  logger: LoggerPort,
): SwitchyardConfig {
  const { config, warnings } = readConfig(format, text, file);
  report(warnings, logger);
  return config;
}

function reloadConfig(
  format: ConfigFormat,
  previous: SwitchyardConfig,
  text: string,
  file: string,
  logger: LoggerPort,
): ConfigReload {
  try {
    const { config, warnings } = readConfig(format, text, file);
    report(warnings, logger);
    return { config, ok: true };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    logger.warn(`${error.message} Keeping the last good config.`, {
      file: error.file,
      key: error.key,
      line: error.line,
    });
    return { config: previous, ok: false, error };
  }
}

function report(warnings: readonly ConfigWarning[], logger: LoggerPort): void {
  for (const warning of warnings) {
    logger.warn(warning.message, { file: warning.file, key: warning.key, line: warning.line });
  }
}

/** yaml's wording is for programmers; these say what to change in the file. */
const SYNTAX_PROBLEMS: Readonly<Record<string, string>> = {
  DUPLICATE_KEY: "a key appears twice in the same map. Keep one of them.",
  MULTIPLE_DOCS:
    'the file holds more than one YAML document. Remove the extra "---" and what follows it.',
  TAB_AS_INDENT: "tabs are not allowed as indentation. Indent with spaces.",
};

function duplicateKeyError(line: number, file: string): ConfigError {
  return new ConfigError(file, "", line, `YAML syntax error: ${SYNTAX_PROBLEMS.DUPLICATE_KEY}`);
}

function syntaxError(error: YAMLError, file: string): ConfigError {
  const problem =
    SYNTAX_PROBLEMS[error.code] ??
    `${reason(error)}. Check the indentation, quotes and colons on that line.`;
  return new ConfigError(file, "", error.linePos?.[0].line, `YAML syntax error: ${problem}`);
}

function yamlWarning(warning: YAMLError, file: string): ConfigWarning {
  const line = warning.linePos?.[0].line;
  return { file, key: "", line, message: `${where(file, line)}: ${reason(warning)}.` };
}

/** yaml's first message line, without the position it also appends. */
function reason(error: YAMLError): string {
  const first = error.message.split("\n", 1)[0] ?? error.message;
  return first.replace(/ at line \d+, column \d+:?$/, "").replace(/[.:]$/, "");
}

function aliasLine(doc: Document, counter: LineCounter): number | undefined {
  let offset: number | undefined;
  const { isAlias, visit } = yaml();
  visit(doc, {
    Alias(_, alias) {
      if (isAlias(alias) && alias.resolve(doc) === undefined && alias.range) {
        offset = alias.range[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return offset === undefined ? undefined : counter.linePos(offset).line;
}
