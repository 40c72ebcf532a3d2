import { namedError } from "../named-error.ts";

/**
 * Values that name environment variables instead of holding secrets:
 * `Authorization: "Bearer ${GITHUB_TOKEN}"` keeps the token out of the
 * config file. `${NAME}` is replaced by the variable; `$${` writes a literal
 * `${`; any other `$` is itself.
 *
 * Parsing is pure and happens when the config is read, so a typo such as
 * `${GITHUB_TOKEN` fails at startup with the key and line. Filling happens
 * where the environment is at hand (the shell), so the core never reads it.
 */
export type TemplatePart =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "env"; readonly name: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A value whose `${...}` cannot be read. */
export class EnvTemplateError extends namedError("EnvTemplateError") {}

/** A value names a variable the environment does not have. */
export class MissingEnvError extends namedError("MissingEnvError") {
  constructor(
    readonly variable: string,
    /** What the value is for, e.g. `header Authorization of MCP server github`. */
    readonly where: string,
  ) {
    super(
      `${where} uses \${${variable}}, which is not set. Set ${variable} in the environment of the switchyard process (or write the value without \${...}).`,
    );
  }
}

/**
 * Splits a value into literal text and variable references.
 *
 * @example
 * parseEnvTemplate("Bearer ${TOKEN}") // [{ kind: "text", text: "Bearer " }, { kind: "env", name: "TOKEN" }]
 */
export function parseEnvTemplate(value: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = "";
  let at = 0;
  while (at < value.length) {
    if (value.startsWith("$${", at)) {
      text += "${";
      at += 3;
      continue;
    }
    if (!value.startsWith("${", at)) {
      text += value[at];
      at++;
      continue;
    }
    const end = value.indexOf("}", at + 2);
    const name = end === -1 ? undefined : value.slice(at + 2, end);
    if (name === undefined || !NAME.test(name)) {
      const shown = JSON.stringify(value.slice(at, end === -1 ? at + 20 : end + 1));
      throw new EnvTemplateError(
        end === -1
          ? `${shown} opens \${ without a closing }. Write \${VARIABLE_NAME}, or $\${ for a literal \${.`
          : `${shown} is not a variable reference. Names use letters, digits and "_", e.g. \${GITHUB_TOKEN}; write $\${ for a literal \${.`,
      );
    }
    if (text !== "") parts.push({ kind: "text", text });
    text = "";
    parts.push({ kind: "env", name });
    at = end + 1;
  }
  if (text !== "") parts.push({ kind: "text", text });
  return parts;
}

/** The variables a value uses, in order of first use. */
export function envNamesOf(value: string): string[] {
  const names = new Set<string>();
  for (const part of parseEnvTemplate(value)) if (part.kind === "env") names.add(part.name);
  return [...names];
}

/**
 * The value with every `${NAME}` replaced. An unset or empty variable is a
 * {@link MissingEnvError}: sending `Bearer ` with no token only moves the
 * failure to a 401 that names nothing.
 */
export function fillEnvTemplate(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  where: string,
): string {
  let out = "";
  for (const part of parseEnvTemplate(value)) {
    if (part.kind === "text") {
      out += part.text;
      continue;
    }
    const found = Object.hasOwn(env, part.name) ? env[part.name] : undefined;
    if (found === undefined || found === "") throw new MissingEnvError(part.name, where);
    out += found;
  }
  return out;
}
