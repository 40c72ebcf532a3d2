import type { JsonSchema, KeyPolicy } from "./tool.ts";

/** A key the schema does not take, where it is, and what the schema takes there. */
export interface UnknownKey {
  /** Where the object holding the key is: `[]` for the arguments themselves. */
  readonly path: readonly (string | number)[];
  readonly key: string;
  /** The keys the schema lists at that place, in its order. */
  readonly expected: readonly string[];
  /** The expected key the model most likely meant, when one is close. */
  readonly suggestion?: string;
}

type Schema = { readonly [key: string]: unknown };

/**
 * Steps through `$ref`, `anyOf` and `allOf` without going into the value: a
 * schema that refers to itself (`{"anyOf": [{"$ref": "#"}]}`) stops here
 * instead of recursing forever.
 */
const MAX_SCHEMA_HOPS = 32;

/**
 * Schema-and-value steps one check may take. Alternatives are tried one by
 * one on the same value, so a hostile schema could make the walk exponential;
 * past this the check stops (validation still runs). Real arguments take a
 * few hundred steps.
 */
const MAX_STEPS = 250_000;

interface Walk {
  readonly root: Schema;
  readonly policy: KeyPolicy;
  steps: number;
}

/**
 * The keys in `value` that `schema` does not take, at every level the schema
 * describes, first in document order. Only keys are judged: types, required
 * keys and formats are the validator's job. Recursion follows the value, whose
 * depth the caller has capped.
 *
 * @example
 * unknownKeys({ type: "object", properties: { timeZone: { type: "string" } } }, { time_zone: "UTC" }, "closed")
 * // [{ path: [], key: "time_zone", expected: ["timeZone"], suggestion: "timeZone" }]
 */
export function unknownKeys(schema: JsonSchema, value: unknown, policy: KeyPolicy): UnknownKey[] {
  const found: UnknownKey[] = [];
  walk({ root: schema, policy, steps: 0 }, schema, value, [], found, 0);
  return found;
}

function walk(
  state: Walk,
  node: unknown,
  value: unknown,
  path: readonly (string | number)[],
  found: UnknownKey[],
  hops: number,
): void {
  if (hops > MAX_SCHEMA_HOPS || ++state.steps > MAX_STEPS) return;
  const { root, policy } = state;
  const schema = resolve(root, node);
  if (schema === undefined) return;

  const alternatives = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
  if (alternatives !== undefined) {
    // The value needs to fit one alternative: report the one it fits best, or none if one fits.
    let best: UnknownKey[] | undefined;
    for (const alternative of alternatives) {
      const resolved = resolve(root, alternative);
      if (resolved === undefined || !fitsType(resolved, value)) continue;
      const inBranch: UnknownKey[] = [];
      walk(state, resolved, value, path, inBranch, hops + 1);
      if (best === undefined || inBranch.length < best.length) best = inBranch;
      if (best.length === 0) break;
    }
    if (best !== undefined) found.push(...best);
  }

  if (Array.isArray(value)) {
    const tuple =
      (Array.isArray(schema.prefixItems) ? schema.prefixItems : undefined) ??
      (Array.isArray(schema.items) ? schema.items : undefined);
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    value.forEach((item, index) => {
      const itemSchema = tuple !== undefined && index < tuple.length ? tuple[index] : rest;
      if (itemSchema !== undefined) walk(state, itemSchema, item, [...path, index], found, 0);
    });
    return;
  }
  if (!isPlainObject(value)) return;

  // allOf parts describe the same object together: a key any part lists is known.
  const parts = [schema, ...allOfParts(root, schema)].filter(describesObject);
  if (parts.length === 0) return;
  const expected = [...new Set(parts.flatMap((part) => Object.keys(propertiesOf(part))))];
  for (const [key, item] of Object.entries(value)) {
    const declaring = parts.filter((part) => Object.hasOwn(propertiesOf(part), key));
    if (declaring.length > 0) {
      for (const part of declaring)
        walk(state, propertiesOf(part)[key], item, [...path, key], found, 0);
      continue;
    }
    const patterned = parts.flatMap((part) => patternSchemas(part, key));
    if (patterned.length > 0) {
      for (const sub of patterned) walk(state, sub, item, [...path, key], found, 0);
      continue;
    }
    const extra = parts.map((part) => part.additionalProperties);
    const closed = parts.some((part) => isClosed(part, policy));
    if (closed) {
      const suggestion = closest(
        key,
        expected.filter((name) => !Object.hasOwn(value, name)),
      );
      found.push({ path, key, expected, ...(suggestion !== undefined ? { suggestion } : {}) });
      continue;
    }
    for (const sub of extra) {
      if (isPlainObject(sub)) walk(state, sub, item, [...path, key], found, 0);
    }
  }
}

function isClosed(part: Schema, policy: KeyPolicy): boolean {
  if (part.additionalProperties === false) return true;
  if (part.additionalProperties === undefined && part.unevaluatedProperties === false) return true;
  return (
    policy === "closed" &&
    part.additionalProperties === undefined &&
    part.patternProperties === undefined &&
    isPlainObject(part.properties)
  );
}

function resolve(root: Schema, node: unknown): Schema | undefined {
  let schema = node;
  for (let hops = 0; isPlainObject(schema) && typeof schema.$ref === "string"; hops++) {
    if (hops >= MAX_SCHEMA_HOPS) return undefined;
    const target = pointer(root, schema.$ref);
    if (target === undefined) return undefined;
    // Keywords beside $ref (2020-12 allows them) still apply; the target's fill the rest.
    const { $ref: _ref, ...beside } = schema;
    schema = { ...target, ...beside };
  }
  return isPlainObject(schema) ? schema : undefined;
}

/** A local JSON pointer (`#`, `#/$defs/Node`); a remote $ref is not followed. */
function pointer(root: Schema, ref: string): Schema | undefined {
  if (ref !== "#" && !ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref === "#" ? [] : ref.slice(2).split("/")) {
    const segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isPlainObject(node) || !Object.hasOwn(node, segment)) return undefined;
    node = node[segment];
  }
  return isPlainObject(node) ? node : undefined;
}

/** The allOf parts, nested ones included, at most {@link MAX_SCHEMA_HOPS} of them. */
function allOfParts(root: Schema, schema: Schema): Schema[] {
  const parts: Schema[] = [];
  const pending = [schema];
  for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
    if (!Array.isArray(next.allOf)) continue;
    for (const part of next.allOf) {
      const resolved = resolve(root, part);
      if (resolved === undefined) continue;
      if (parts.length >= MAX_SCHEMA_HOPS) return parts;
      parts.push(resolved);
      pending.push(resolved);
    }
  }
  return parts;
}

function describesObject(schema: Schema): boolean {
  return (
    typeIncludes(schema.type, "object") ||
    isPlainObject(schema.properties) ||
    schema.additionalProperties !== undefined ||
    isPlainObject(schema.patternProperties)
  );
}

function propertiesOf(schema: Schema): Schema {
  return isPlainObject(schema.properties) ? schema.properties : {};
}

function patternSchemas(schema: Schema, key: string): unknown[] {
  if (!isPlainObject(schema.patternProperties)) return [];
  return Object.entries(schema.patternProperties).flatMap(([pattern, sub]) => {
    try {
      return new RegExp(pattern, "u").test(key) ? [sub] : [];
    } catch {
      // A pattern JavaScript cannot read cannot decide against the key.
      return [sub];
    }
  });
}

/** Whether an alternative is about this kind of value at all (a string branch says nothing of an object's keys). */
function fitsType(schema: Schema, value: unknown): boolean {
  const kind =
    value === null
      ? "null"
      : Array.isArray(value)
        ? "array"
        : typeof value === "object"
          ? "object"
          : typeof value;
  if (schema.type !== undefined) {
    if (kind === "number" && typeIncludes(schema.type, "integer")) return true;
    return typeIncludes(schema.type, kind);
  }
  if (kind !== "object" && describesObject(schema) && schema.anyOf === undefined) return false;
  return true;
}

function typeIncludes(type: unknown, name: string): boolean {
  return type === name || (Array.isArray(type) && type.includes(name));
}

function isPlainObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The candidate a key most likely meant: the same letters once case and
 * separators are ignored (`time_zone` for `timeZone`), else one that starts
 * the other (`repository` for `repo`), else the nearest by edit distance
 * (a swap of neighbours counts once), within a third of the key's length.
 */
export function closest(key: string, candidates: readonly string[]): string | undefined {
  const folded = fold(key);
  if (folded === "") return undefined;
  const same = candidates.find((candidate) => fold(candidate) === folded);
  if (same !== undefined) return same;
  const prefixed = candidates.find((candidate) => {
    const other = fold(candidate);
    const [short, long] = other.length < folded.length ? [other, folded] : [folded, other];
    return short.length >= 3 && long.startsWith(short);
  });
  if (prefixed !== undefined) return prefixed;
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(folded.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(folded, fold(candidate), bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function fold(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/**
 * Edit distance with swaps of neighbours (optimal string alignment), or
 * `limit` as soon as it cannot be less: keys are short, and this bounds a
 * long one.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let cell = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        cell = Math.min(cell, (before[j - 2] as number) + 1);
      }
      current.push(cell);
      rowMin = Math.min(rowMin, cell);
    }
    if (rowMin >= limit) return limit;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] as number, limit);
}
