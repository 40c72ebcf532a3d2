import { KEY_SWITCH_VALUES, SWITCH_VALUES } from "../core/availability/intent.ts";
import { isWellFormedKey } from "../core/availability/keys.ts";
import { isLoadMode } from "../core/loading/modes.ts";
import { StoreInputError } from "./errors.ts";

/**
 * What a change may carry. Each check refuses a value whose stored form would
 * read back damaged, so what a person asked for is never silently dropped on
 * the next read; the error names the value and what to use instead.
 */
export const TOOL_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function checkKey(key: string): void {
  if (typeof key !== "string" || !isWellFormedKey(key)) {
    throw new StoreInputError(
      `${JSON.stringify(key)} is not a tool key: use a tool id (web_search), a family (mcp:github), mcp or all.`,
    );
  }
}

export function checkSwitch(subject: string, value: string): void {
  if (!(SWITCH_VALUES as readonly string[]).includes(value)) {
    throw new StoreInputError(
      `Cannot set ${subject} to ${JSON.stringify(value)}: use "on", "off" or "follow".`,
    );
  }
}

/** A tool key's value: a switch, or `ask`. */
export function checkKeySwitch(subject: string, value: string): void {
  if (!(KEY_SWITCH_VALUES as readonly string[]).includes(value)) {
    throw new StoreInputError(
      `Cannot set ${subject} to ${JSON.stringify(value)}: use "on", "off", "ask" or "follow".`,
    );
  }
}

export function checkIds(verb: string, ids: readonly string[]): void {
  for (const id of ids) {
    if (typeof id !== "string" || !TOOL_ID.test(id)) {
      throw new StoreInputError(
        `Cannot ${verb} ${JSON.stringify(id)}: a tool id is 1-64 letters, digits, "_" or "-".`,
      );
    }
  }
}

export function checkToolset(name: string | null): void {
  if (name !== null && (typeof name !== "string" || name.length === 0)) {
    throw new StoreInputError(
      `Cannot use toolset ${JSON.stringify(name)}: name a toolset such as "default", or null to follow.`,
    );
  }
}

export function checkMode(mode: string | null): void {
  if (mode !== null && !isLoadMode(mode)) {
    throw new StoreInputError(
      `Cannot use load mode ${JSON.stringify(mode)}: use full, default, minimal or discover, or null to follow.`,
    );
  }
}
