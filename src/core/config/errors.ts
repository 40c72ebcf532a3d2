/**
 * A config file that cannot be used. The message is written for the person
 * editing the file: where (file, line), which key, what is wrong and how to
 * fix it, e.g.
 *
 * ```text
 * switchyard.yaml:4: tools.web_search: "maybe" is not on/off/ask/true/false. Write web_search: on, web_search: off or web_search: ask.
 * ```
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    /** The file's name as the caller passed it. */
    readonly file: string,
    /** Dotted key path such as `tools.web_search` or `toolsets.triage.includes[0]`; empty for the whole file. */
    readonly key: string,
    /** 1-based line of the offending key or value, when known. */
    readonly line: number | undefined,
    /** What is wrong and how to fix it. */
    readonly problem: string,
  ) {
    super(`${where(file, line)}: ${key === "" ? "" : `${key}: `}${problem}`);
  }
}

/** Something in the file that was ignored but probably deserves a look, such as an unknown section. */
export interface ConfigWarning {
  readonly file: string;
  readonly key: string;
  readonly line: number | undefined;
  readonly message: string;
}

export type KeyPath = readonly PropertyKey[];

export function where(file: string, line: number | undefined): string {
  return line === undefined ? file : `${file}:${line}`;
}

/** `["toolsets", "triage", "includes", 0]` -> `toolsets.triage.includes[0]`. */
export function renderKeyPath(path: KeyPath): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

const MAX_SHOWN = 40;

/** A value as the person wrote it, short enough to quote in a message. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "an empty value";
  if (typeof value === "string") {
    const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
    return JSON.stringify(shown);
  }
  if (Array.isArray(value)) return "a list";
  if (ArrayBuffer.isView(value)) return "binary data";
  if (typeof value === "object") return "a map";
  return String(value);
}
