import { isWellFormedKey } from "../core/availability/keys.ts";

/**
 * Per-key decisions live one hash field each, `d:<key>` = "1" (on) or "0"
 * (off), so two people switching two keys at the same moment write two
 * different fields and both stick. "follow" is the field's absence.
 */
export const DECISION_PREFIX = "d:";

export function decisionField(key: string): string {
  return `${DECISION_PREFIX}${key}`;
}

export function decisionValue(on: boolean): string {
  return on ? "1" : "0";
}

export interface DecodedDecisions {
  readonly decisions: Record<string, boolean>;
  /** `[field, why]` for each field that was skipped. */
  readonly damaged: Array<readonly [string, string]>;
}

/** Reads every `d:` field of a hash; a field with a bad key or value is skipped, not fatal. */
export function readDecisions(hash: Readonly<Record<string, string>>): DecodedDecisions {
  const decisions: Record<string, boolean> = {};
  const damaged: Array<readonly [string, string]> = [];
  for (const field of Object.keys(hash).sort()) {
    if (!field.startsWith(DECISION_PREFIX)) continue;
    const key = field.slice(DECISION_PREFIX.length);
    const value = hash[field];
    if (!isWellFormedKey(key)) damaged.push([field, `${JSON.stringify(key)} is not a tool key`]);
    else if (value === "1") decisions[key] = true;
    else if (value === "0") decisions[key] = false;
    else damaged.push([field, `value ${JSON.stringify(value)} is not "1" (on) or "0" (off)`]);
  }
  return { decisions, damaged };
}
