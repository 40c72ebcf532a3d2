import { ASK, isWellFormedKey, type KeyValue } from "../core/availability/keys.ts";

/**
 * Per-key decisions live one hash field each, `d:<key>` = "1" (on), "0"
 * (off) or "ask", so two people switching two keys at the same moment write
 * two different fields and both stick. "follow" is the field's absence.
 * "1" and "0" are what every layer stored before `ask` holds.
 */
export const DECISION_PREFIX = "d:";

export function decisionField(key: string): string {
  return `${DECISION_PREFIX}${key}`;
}

export function decisionValue(value: KeyValue): string {
  return value === ASK ? ASK : value ? "1" : "0";
}

export interface DecodedDecisions {
  readonly decisions: Record<string, KeyValue>;
  /** `[field, why]` for each field that was skipped. */
  readonly damaged: Array<readonly [string, string]>;
}

/** Reads every `d:` field of a hash; a field with a bad key or value is skipped, not fatal. */
export function readDecisions(hash: Readonly<Record<string, string>>): DecodedDecisions {
  const decisions: Record<string, KeyValue> = {};
  const damaged: Array<readonly [string, string]> = [];
  for (const field of Object.keys(hash).sort()) {
    if (!field.startsWith(DECISION_PREFIX)) continue;
    const key = field.slice(DECISION_PREFIX.length);
    const value = hash[field];
    if (!isWellFormedKey(key)) damaged.push([field, `${JSON.stringify(key)} is not a tool key`]);
    else if (value === "1") decisions[key] = true;
    else if (value === "0") decisions[key] = false;
    else if (value === ASK) decisions[key] = ASK;
    else
      damaged.push([field, `value ${JSON.stringify(value)} is not "1" (on), "0" (off) or "ask"`]);
  }
  return { decisions, damaged };
}
