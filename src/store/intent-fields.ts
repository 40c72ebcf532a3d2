import {
  type IntentChange,
  type IntentReading,
  type KeySwitch,
  readIntent,
} from "../core/availability/intent.ts";
import { ALL_KEY, keyValueOf } from "../core/availability/keys.ts";
import {
  checkIds,
  checkKey,
  checkKeySwitch,
  checkMode,
  checkSwitch,
  checkToolset,
  TOOL_ID,
} from "./change-checks.ts";
import { decisionField, decisionValue, readDecisions } from "./decision-fields.ts";

/**
 * How an Intent lies in its Redis HASH. Only what differs from "follow" is
 * present, so the hash is O(what people changed):
 *
 * | field       | value                                         |
 * | ----------- | --------------------------------------------- |
 * | `v`         | `1`                                           |
 * | `master`    | `on` / `off` / `ask` (the `all` key)          |
 * | `toolset`   | a toolset name                                |
 * | `webSearch` | `on` / `off`                                  |
 * | `mode`      | a load mode                                   |
 * | `picked`    | a JSON array of ids, sorted                   |
 * | `d:<key>`   | `1` / `0` / `ask`, one per decision           |
 * | `m:<id>`    | the mount's sequence number (load order)      |
 * | `mseq`      | the last sequence number handed to a mount    |
 */
export const MASTER_FIELD = "master";
export const TOOLSET_FIELD = "toolset";
export const WEB_SEARCH_FIELD = "webSearch";
export const MODE_FIELD = "mode";
export const PICKED_FIELD = "picked";
export const MOUNT_PREFIX = "m:";
export const MOUNT_SEQ_FIELD = "mseq";

/** The writes of a change that touches fixed fields only: one HSET and one HDEL. */
export interface FieldWrites {
  readonly set: Record<string, string>;
  readonly del: string[];
}

/** Every change but a mount or a full reset, which are scripts. */
export type FieldChange =
  | Exclude<IntentChange, { kind: "mount" } | { kind: "reset" }>
  | { readonly kind: "reset"; readonly key: string };

export function fieldWrites(change: FieldChange): FieldWrites {
  switch (change.kind) {
    case "set":
      return switchWrites(change.key, change.value);
    case "reset":
      return switchWrites(change.key, "follow");
    case "pick":
      return change.ids.length === 0
        ? { set: {}, del: [PICKED_FIELD] }
        : { set: { [PICKED_FIELD]: JSON.stringify([...new Set(change.ids)].sort()) }, del: [] };
    case "toolset":
      // A toolset replaces a hand-picked list: the two fields change together.
      return change.name === null
        ? { set: {}, del: [TOOLSET_FIELD, PICKED_FIELD] }
        : { set: { [TOOLSET_FIELD]: change.name }, del: [PICKED_FIELD] };
    case "mode":
      return optional(MODE_FIELD, change.mode);
    case "webSearch":
      return optional(WEB_SEARCH_FIELD, change.value === "follow" ? null : change.value);
  }
}

function switchWrites(key: string, value: KeySwitch): FieldWrites {
  if (key === ALL_KEY) return optional(MASTER_FIELD, value === "follow" ? null : value);
  const field = decisionField(key);
  return value === "follow"
    ? { set: {}, del: [field] }
    : { set: { [field]: decisionValue(keyValueOf(value)) }, del: [] };
}

function optional(field: string, value: string | null): FieldWrites {
  return value === null ? { set: {}, del: [field] } : { set: { [field]: value }, del: [] };
}

/**
 * Builds the Intent a hash holds and reads it through `readIntent`, which
 * reports damaged fields and reads them as "follow". Decisions and mounts are
 * checked field by field first, so one bad field costs only itself.
 */
export function intentFromHash(hash: Readonly<Record<string, string>>): IntentReading {
  const problems: string[] = [];
  const raw: Record<string, unknown> = {};
  for (const field of [MASTER_FIELD, TOOLSET_FIELD, WEB_SEARCH_FIELD, MODE_FIELD]) {
    if (hash[field] !== undefined) raw[field] = hash[field];
  }
  const picked = hash[PICKED_FIELD];
  if (picked !== undefined) raw.picked = parseJson(picked);

  const { decisions, damaged } = readDecisions(hash);
  for (const [field, why] of damaged) problems.push(`${field}: ${why}`);
  raw.decisions = decisions;

  const mounts: Array<{ id: string; seq: number }> = [];
  for (const [field, value] of Object.entries(hash)) {
    if (!field.startsWith(MOUNT_PREFIX)) continue;
    const id = field.slice(MOUNT_PREFIX.length);
    const seq = Number(value);
    if (!TOOL_ID.test(id)) problems.push(`${field}: ${JSON.stringify(id)} is not a tool id`);
    else if (!Number.isFinite(seq)) problems.push(`${field}: sequence ${JSON.stringify(value)}`);
    else mounts.push({ id, seq });
  }
  mounts.sort((a, b) => a.seq - b.seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  raw.mounted = mounts.map((mount) => mount.id);

  const reading = readIntent(raw);
  return { intent: reading.intent, problems: [...problems, ...reading.problems] };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // readIntent reports a string where an array belongs
  }
}

/** Refuses a change that cannot be stored as given, writing nothing. */
export function checkIntentChange(change: IntentChange): void {
  switch (change.kind) {
    case "set":
      checkKey(change.key);
      checkKeySwitch(change.key, change.value);
      return;
    case "reset":
      if (change.key !== undefined) checkKey(change.key);
      return;
    case "pick":
    case "mount":
      checkIds(change.kind, change.ids);
      return;
    case "toolset":
      checkToolset(change.name);
      return;
    case "mode":
      checkMode(change.mode);
      return;
    case "webSearch":
      checkSwitch("web search", change.value);
      return;
  }
}
