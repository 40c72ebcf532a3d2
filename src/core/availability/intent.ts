import { z } from "zod";
import { LOAD_MODES, type LoadMode } from "../loading/modes.ts";
import { ALL_KEY, ASK, isWellFormedKey, type KeyValue, keyValueOf } from "./keys.ts";

/**
 * What a conversation stores about its tools: what people asked for, never an
 * expanded list. Its size is O(what people changed); a new tool in the
 * registry reaches the conversation on its next turn because nothing here
 * lists "all the tools".
 */
export const INTENT_VERSION = 1;

export const SWITCH_VALUES = ["on", "off", "follow"] as const;
export type Switch = (typeof SWITCH_VALUES)[number];

/**
 * What a person may set a tool key to: a {@link Switch} or `ask` (on, each
 * call approved first). The web-search layer and skills take a plain Switch.
 */
export const KEY_SWITCH_VALUES = ["on", "off", ASK, "follow"] as const;
export type KeySwitch = (typeof KEY_SWITCH_VALUES)[number];

export interface Intent {
  readonly v: typeof INTENT_VERSION;
  /** The master switch, the conversation's `all` key. */
  readonly master: KeySwitch;
  /** A toolset name, or null to follow the shallower scopes. */
  readonly toolset: string | null;
  /** The web-search layer: switches `web_search` for this conversation unless a per-key decision says otherwise. */
  readonly webSearch: Switch;
  /** Per-key decisions at conversation scope (tool ids, `mcp:<server>`, `mcp`): on, off or `ask`. */
  readonly decisions: Readonly<Record<string, KeyValue>>;
  /** Only when a person picked tools one by one: exactly those, instead of a toolset. */
  readonly picked: readonly string[] | null;
  /** The load mode, or null to follow. */
  readonly mode: LoadMode | null;
  /** Tools loaded by discovery, in the order they were loaded; they stay resident. */
  readonly mounted: readonly string[];
}

export const EMPTY_INTENT: Intent = Object.freeze({
  v: INTENT_VERSION,
  master: "follow",
  toolset: null,
  webSearch: "follow",
  decisions: Object.freeze({}),
  picked: null,
  mode: null,
  mounted: Object.freeze([]) as readonly string[],
});

const switchField = z.enum(SWITCH_VALUES);
const keySwitchField = z.enum(KEY_SWITCH_VALUES);
const idList = z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/));

/**
 * Each field on its own: an old or partial intent reads back with what is
 * missing as "follow", and one damaged field does not cost the others.
 */
const FIELDS = {
  master: keySwitchField,
  toolset: z.string().min(1).nullable(),
  webSearch: switchField,
  // Booleans are what every intent stored before `ask` holds; they read as before.
  decisions: z.record(z.string().refine(isWellFormedKey), z.union([z.boolean(), z.literal(ASK)])),
  picked: idList.nullable(),
  mode: z.enum(LOAD_MODES).nullable(),
  mounted: idList,
} as const;

export interface IntentReading {
  intent: Intent;
  /** Fields that were present but unreadable, and so read as "follow". */
  problems: string[];
}

/** Reads stored intent of any version. Never throws; damaged fields are reported and followed. */
export function readIntent(stored: unknown): IntentReading {
  const problems: string[] = [];
  if (stored === undefined || stored === null) return { intent: EMPTY_INTENT, problems };
  if (typeof stored !== "object" || Array.isArray(stored)) {
    return { intent: EMPTY_INTENT, problems: [`intent is ${describe(stored)}, not an object`] };
  }
  const raw = stored as Record<string, unknown>;
  const out: Record<string, unknown> = { ...EMPTY_INTENT };
  for (const [field, schema] of Object.entries(FIELDS)) {
    if (raw[field] === undefined) continue;
    const parsed = schema.safeParse(raw[field]);
    if (parsed.success) out[field] = parsed.data;
    else problems.push(`${field}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  return { intent: normalize(out as unknown as Intent), problems };
}

/** The stored form: only what differs from "follow", so storage stays O(changes). */
export function writeIntent(intent: Intent): Record<string, unknown> {
  const out: Record<string, unknown> = { v: INTENT_VERSION };
  if (intent.master !== "follow") out.master = intent.master;
  if (intent.toolset !== null) out.toolset = intent.toolset;
  if (intent.webSearch !== "follow") out.webSearch = intent.webSearch;
  if (Object.keys(intent.decisions).length > 0) out.decisions = intent.decisions;
  if (intent.picked !== null) out.picked = intent.picked;
  if (intent.mode !== null) out.mode = intent.mode;
  if (intent.mounted.length > 0) out.mounted = intent.mounted;
  return out;
}

/**
 * Switches one key at conversation scope. `all` is the master switch;
 * `follow` removes the decision so shallower scopes decide again.
 */
export function setKey(intent: Intent, key: string, value: KeySwitch): Intent {
  if (key === ALL_KEY) return { ...intent, master: value };
  const decisions = { ...intent.decisions };
  if (value === "follow") delete decisions[key];
  else decisions[key] = keyValueOf(value);
  return normalize({ ...intent, decisions });
}

/** Resets one key to "follow", or with no key everything but the discovery mounts. */
export function reset(intent: Intent, key?: string): Intent {
  if (key !== undefined) return setKey(intent, key, "follow");
  return { ...EMPTY_INTENT, mounted: intent.mounted };
}

/** A hand-picked list replaces the toolset; an empty pick returns to following it. */
export function pick(intent: Intent, ids: readonly string[]): Intent {
  return normalize({ ...intent, picked: ids.length === 0 ? null : [...ids] });
}

/** Adds discovery loads in the order given, after the ones already mounted. */
export function mount(intent: Intent, ids: readonly string[]): Intent {
  const mounted = [...intent.mounted];
  for (const id of ids) if (!mounted.includes(id)) mounted.push(id);
  return mounted.length === intent.mounted.length ? intent : { ...intent, mounted };
}

export function setToolset(intent: Intent, toolset: string | null): Intent {
  return { ...intent, toolset, picked: null };
}

export function setMode(intent: Intent, mode: LoadMode | null): Intent {
  return { ...intent, mode };
}

export function setWebSearch(intent: Intent, value: Switch): Intent {
  return { ...intent, webSearch: value };
}

/** Canonical form: decision keys sorted, picks sorted and unique, so equal intents store equal bytes. */
function normalize(intent: Intent): Intent {
  const decisions: Record<string, KeyValue> = {};
  for (const key of Object.keys(intent.decisions).sort()) {
    decisions[key] = intent.decisions[key] as KeyValue;
  }
  const picked = intent.picked === null ? null : [...new Set(intent.picked)].sort();
  const mounted = [...new Set(intent.mounted)];
  return { ...intent, v: INTENT_VERSION, decisions, picked, mounted };
}

function describe(value: unknown): string {
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/**
 * A change to a conversation's intent, as data: the form a store applies
 * atomically field by field, so two people changing two keys at once both
 * stick. {@link applyChange} is the reference semantics every store must match.
 */
export type IntentChange =
  | { readonly kind: "set"; readonly key: string; readonly value: KeySwitch }
  | { readonly kind: "reset"; readonly key?: string }
  | { readonly kind: "pick"; readonly ids: readonly string[] }
  | { readonly kind: "mount"; readonly ids: readonly string[] }
  | { readonly kind: "toolset"; readonly name: string | null }
  | { readonly kind: "mode"; readonly mode: LoadMode | null }
  | { readonly kind: "webSearch"; readonly value: Switch };

type ChangeOf<K extends IntentChange["kind"]> = Extract<IntentChange, { kind: K }>;

/** Each kind of change, applied: one line each, so a new kind cannot be left out (the type demands it). */
const APPLY: {
  readonly [K in IntentChange["kind"]]: (intent: Intent, change: ChangeOf<K>) => Intent;
} = {
  set: (intent, { key, value }) => setKey(intent, key, value),
  reset: (intent, { key }) => reset(intent, key),
  pick: (intent, { ids }) => pick(intent, ids),
  mount: (intent, { ids }) => mount(intent, ids),
  toolset: (intent, { name }) => setToolset(intent, name),
  mode: (intent, { mode }) => setMode(intent, mode),
  webSearch: (intent, { value }) => setWebSearch(intent, value),
};

export function applyChange(intent: Intent, change: IntentChange): Intent {
  // TypeScript cannot pair a union's kind with its entry in APPLY; the mapped type above does.
  const apply = APPLY[change.kind] as (intent: Intent, change: IntentChange) => Intent;
  return apply(intent, change);
}
