import { untrustedText } from "../agent/untrusted-text.ts";
import { HookTemplateError } from "./errors.ts";

/**
 * A hook's prompt template: the operator's words with `{{body.path}}`
 * placeholders, each a dotted path into the JSON the hook was sent.
 *
 * ```text
 * CI failed: {{body.summary}} on {{body.repository.full_name}}. Look at the log and tell us what broke.
 * ```
 *
 * A path is `body` followed by `.key` steps; a step of digits indexes an
 * array (`{{body.commits.0.message}}`). That is the whole language: no
 * code, no filters, no conditionals. Spaces inside the braces are allowed,
 * `{{` with no path and `}}` is an error when the config is read, so a typo
 * never reaches a turn.
 */
export interface HookTemplate {
  /** The template as written. */
  readonly source: string;
  readonly parts: readonly TemplatePiece[];
}

export type TemplatePiece =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "path"; readonly path: readonly string[] };

/** The longest template, in characters. */
export const MAX_TEMPLATE_CHARS = 4_000;
/** The most placeholders one template may have: with the value cap, the message stays far under the inbound limit. */
export const MAX_PLACEHOLDERS = 20;
/** The most characters one placeholder renders, its value cut past it. */
export const MAX_VALUE_CHARS = 4_000;
/** The deepest path a placeholder may name. */
export const MAX_PATH_STEPS = 16;

const STEP = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Reads a template.
 *
 * @throws HookTemplateError naming where and what to write
 * @example
 * parseHookTemplate("CI failed: {{ body.summary }}").parts;
 * // [{ kind: "text", text: "CI failed: " }, { kind: "path", path: ["summary"] }]
 */
export function parseHookTemplate(source: string): HookTemplate {
  if (source.trim() === "") {
    throw new HookTemplateError(0, source, "write what the bot should do with the hook's body");
  }
  if (source.length > MAX_TEMPLATE_CHARS) {
    throw new HookTemplateError(
      MAX_TEMPLATE_CHARS,
      source.slice(MAX_TEMPLATE_CHARS, MAX_TEMPLATE_CHARS + 20),
      `a template is at most ${MAX_TEMPLATE_CHARS} characters; say less, the body's values fill in the rest`,
    );
  }
  const parts: TemplatePiece[] = [];
  let text = "";
  let at = 0;
  let placeholders = 0;
  while (at < source.length) {
    const open = source.indexOf("{{", at);
    const stray = source.indexOf("}}", at);
    if (stray !== -1 && (open === -1 || stray < open)) {
      throw new HookTemplateError(
        stray,
        "}}",
        "a }} closes nothing here. Write a placeholder as {{body.key}}",
      );
    }
    if (open === -1) {
      text += source.slice(at);
      break;
    }
    text += source.slice(at, open);
    const close = source.indexOf("}}", open + 2);
    if (close === -1) {
      throw new HookTemplateError(
        open,
        source.slice(open, open + 30),
        "{{ opens a placeholder with no }}. Write {{body.key}}",
      );
    }
    const inner = source.slice(open + 2, close);
    const path = parsePath(inner.trim(), open);
    if (++placeholders > MAX_PLACEHOLDERS) {
      throw new HookTemplateError(
        open,
        source.slice(open, close + 2),
        `a template has at most ${MAX_PLACEHOLDERS} placeholders; use {{body}} for the whole body`,
      );
    }
    if (text !== "") parts.push({ kind: "text", text });
    text = "";
    parts.push({ kind: "path", path });
    at = close + 2;
  }
  if (text !== "") parts.push({ kind: "text", text });
  return { source, parts };
}

function parsePath(inner: string, at: number): string[] {
  const steps = inner.split(".");
  if (steps[0] !== "body") {
    throw new HookTemplateError(
      at,
      `{{${inner}}}`,
      "a placeholder is a path into the JSON body, starting with body (e.g. {{body.summary}}, {{body.commits.0.message}})",
    );
  }
  const rest = steps.slice(1);
  if (rest.length > MAX_PATH_STEPS) {
    throw new HookTemplateError(at, `{{${inner}}}`, `a path has at most ${MAX_PATH_STEPS} steps`);
  }
  for (const step of rest) {
    if (!STEP.test(step)) {
      throw new HookTemplateError(
        at,
        `{{${inner}}}`,
        `${JSON.stringify(step)} is not a step of a path. Steps are keys of letters, digits, _ and - (or an array index), joined by dots`,
      );
    }
  }
  return rest;
}

/** What a placeholder names, as the model reads it: `body.commits.0.message`. */
export function pathLabel(path: readonly string[]): string {
  return ["body", ...path].join(".");
}

/** The value at `path` in `body`, own keys only (`__proto__` is a key like any other), or undefined. */
export function valueAt(body: unknown, path: readonly string[]): unknown {
  let value = body;
  for (const step of path) {
    if (Array.isArray(value)) {
      if (!/^\d+$/.test(step)) return undefined;
      value = value[Number(step)];
    } else if (value !== null && typeof value === "object") {
      if (!Object.hasOwn(value, step)) return undefined;
      value = (value as Record<string, unknown>)[step];
    } else {
      return undefined;
    }
  }
  return value;
}

/**
 * A value as text: strings as they are, anything else as JSON (objects and
 * arrays included). A value nested too deep to write out (JSON.parse reads
 * depths JSON.stringify cannot write) says so instead of throwing.
 */
export function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return "[unreadable: nested too deep to write out]";
  }
}

/**
 * `text` cut to `max` characters (never inside a surrogate pair), saying
 * how much was cut.
 */
export function capText(text: string, max = MAX_VALUE_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… [cut: ${text.length - end} more characters]`;
}

/** What a placeholder whose path the body does not have renders as. */
export function missingMarker(path: readonly string[]): string {
  return `[missing: ${pathLabel(path)}]`;
}

/**
 * The template filled in from `body`. The operator's words stay as they
 * are; each value is untrusted text (the sender wrote it, not a person in
 * the conversation), so it reaches the model as a delimited block named
 * with the hook and its path, cut to {@link MAX_VALUE_CHARS}. A path the
 * body does not have renders {@link missingMarker}. Never throws.
 *
 * @example
 * renderHookTemplate(parseHookTemplate("CI failed: {{body.summary}}."), { summary: "3 tests" }, "ci");
 * // 'CI failed: <untrusted source="hook ci body.summary">\n3 tests\n</untrusted>.'
 */
export function renderHookTemplate(template: HookTemplate, body: unknown, hook: string): string {
  let out = "";
  for (const part of template.parts) {
    if (part.kind === "text") {
      out += part.text;
      continue;
    }
    const value = valueAt(body, part.path);
    out +=
      value === undefined
        ? missingMarker(part.path)
        : untrustedText(`hook ${hook} ${pathLabel(part.path)}`, capText(valueText(value)));
  }
  return out;
}
