import type { SettingScope } from "../../store/index.ts";

/** `/model` and `/queue` arguments: a value (or `default`) and an optional scope. */
export type SettingArgs =
  | { readonly kind: "show" }
  | { readonly kind: "set"; readonly value: string | undefined; readonly scope: SettingScope }
  | { readonly kind: "bad"; readonly problem: string };

const SCOPES: readonly SettingScope[] = ["conversation", "channel"];

/**
 * Reads `[value [conversation|channel]]`: nothing shows the setting;
 * `default` clears the choice so the config decides again. `usage` ends a
 * problem, e.g. "/model <name> [channel]".
 */
export function parseSettingArgs(args: string, usage: string): SettingArgs {
  const words = args.split(/\s+/).filter((w) => w !== "");
  if (words.length === 0) return { kind: "show" };
  if (words.length > 2) {
    return { kind: "bad", problem: `Too many words after the command. Usage: ${usage}` };
  }
  const [value = "", scopeWord = "conversation"] = words;
  const scope = SCOPES.find((s) => s === scopeWord.toLowerCase());
  if (!scope) {
    return {
      kind: "bad",
      problem: `"${scopeWord.slice(0, 40)}" is not a scope here: use conversation or channel. Usage: ${usage}`,
    };
  }
  return { kind: "set", value: value.toLowerCase() === "default" ? undefined : value, scope };
}

/** "this conversation" / "this channel", for replies. */
export function scopeName(scope: SettingScope): string {
  return `this ${scope}`;
}
