import type { KeySwitch, Switch } from "../core/availability/intent.ts";
import { type KeyValue, keyValueOf } from "../core/availability/keys.ts";
import type { ScopeLayer, ScopeStack } from "../core/availability/scopes.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import { isLoadMode, type LoadMode } from "../core/loading/modes.ts";
import { checkSwitch } from "./change-checks.ts";
import { decisionField, decisionValue, readDecisions } from "./decision-fields.ts";
import { StoreInputError } from "./errors.ts";
import { type HashReading, readHash, readHashes } from "./hash-read.ts";
import { checkIntentChange } from "./intent-fields.ts";
import type { ScopeKind, ScopeRef } from "./keys.ts";
import { hashFromReply } from "./lua.ts";
import { resetFields } from "./reset-fields.ts";
import { StateStore } from "./state-store.ts";
import { runTransaction } from "./transaction.ts";

/** A change to a workspace's or channel's layer, applied atomically on its own fields. */
export type ScopeChange =
  | { readonly kind: "set"; readonly key: string; readonly value: KeySwitch }
  /** One key back to "follow", or with no key every tool decision, the toolset and the mode. */
  | { readonly kind: "reset"; readonly key?: string }
  | { readonly kind: "toolset"; readonly name: string | null }
  | { readonly kind: "mode"; readonly mode: LoadMode | null };

/** The scope hashes a turn reads. */
export interface StackKeys {
  readonly workspace: string;
  readonly channel: string;
  readonly global: string;
}

/** Skill toggles by skill name: on (`true`) or off; a skill not listed follows. */
export type SkillToggles = Record<string, boolean>;

/** What a turn reads of the shared scopes: their tool layers and their skill toggles. */
export interface StoredStack extends Pick<ScopeStack, "workspace" | "channel"> {
  readonly workspace: ScopeLayer;
  readonly channel: ScopeLayer;
  /** Owners' global changes from chat, laid over the config file's global layer. */
  readonly globalOverlay: ScopeLayer;
  readonly skills: {
    readonly workspace: SkillToggles;
    readonly channel: SkillToggles;
    readonly global: SkillToggles;
  };
}

const SCOPE_VERSION = 1;
const TOOLSET_FIELD = "toolset";
const MODE_FIELD = "mode";
const SKILL_PREFIX = "s:";
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * The workspace and channel layers people change from chat, one HASH per
 * scope in the same layout as a conversation's intent: `d:<key>` = "1"/"0"/"ask",
 * `toolset`, `mode`, `v`, plus skill toggles `s:<name>` = "1"/"0". A field
 * damaged by hand is skipped with a warning; the rest of the layer still
 * holds.
 *
 * @example
 * await scopes.apply("channel", address, { kind: "set", key: "mcp:github", value: "off" });
 * const layer = await scopes.read("channel", address); // { keys: { "mcp:github": false } }
 */
export class ScopeStore extends StateStore {
  /** The last toggles read per scope key, so a damaged field keeps serving its last good value. */
  readonly #lastGoodSkills = new Map<string, SkillToggles>();

  /** The layer as stored; an untouched scope reads as `{}`. */
  async read<S extends ScopeKind>(scope: S, where: ScopeRef<S>): Promise<ScopeLayer> {
    const key = this.keys.scope(scope, where);
    return this.#layer(await this.#hash(key), key);
  }

  /**
   * The stored layers around a conversation, for the turn's ScopeStack, and
   * the skill toggles of the same scopes, from one read of each hash.
   */
  async readStack(address: ConversationAddress): Promise<StoredStack> {
    const keys = this.stackKeys(address);
    const [[workspace, channel], global] = await Promise.all([
      readHashes(this.redis, [keys.workspace, keys.channel]),
      readHash(this.redis, keys.global),
    ]);
    return this.stackFrom(keys, {
      workspace: workspace as HashReading,
      channel: channel as HashReading,
      global,
    });
  }

  /** The keys {@link readStack} reads: the workspace's and the channel's share a slot, the global one has its own. */
  stackKeys(address: ConversationAddress): StackKeys {
    return {
      workspace: this.keys.scope("workspace", address),
      channel: this.keys.scope("channel", address),
      global: this.keys.scope("global", {}),
    };
  }

  /** The stack from its hashes fetched elsewhere (a turn snapshot), with the same damage reports. */
  stackFrom(keys: StackKeys, read: Readonly<Record<keyof StackKeys, HashReading>>): StoredStack {
    const hash = (scope: keyof StackKeys) => {
      const { problem } = read[scope];
      if (problem !== undefined) {
        this.warnings.warn(keys[scope], `${problem}; it reads as an empty layer.`);
      }
      return read[scope].hash;
    };
    const workspace = hash("workspace");
    const channel = hash("channel");
    const global = hash("global");
    return {
      workspace: this.#layer(workspace, keys.workspace),
      channel: this.#layer(channel, keys.channel),
      globalOverlay: this.#layer(global, keys.global),
      skills: {
        workspace: this.#skills(workspace, keys.workspace),
        channel: this.#skills(channel, keys.channel),
        global: this.#skills(global, keys.global),
      },
    };
  }

  /** Applies one change atomically and returns the layer right after it. */
  async apply<S extends ScopeKind>(
    scope: S,
    where: ScopeRef<S>,
    change: ScopeChange,
  ): Promise<ScopeLayer> {
    // A scope change is a subset of an intent change: set, reset, toolset, mode.
    checkIntentChange(change);
    const key = this.keys.scope(scope, where);
    if (change.kind === "reset" && change.key === undefined) {
      // Skill toggles are /skills' business, not /tools reset's.
      const reply = await resetFields.run(this.redis, [key], [SCOPE_VERSION, SKILL_PREFIX]);
      return this.#layer(hashFromReply(reply), key);
    }
    const multi = this.redis.multi();
    const set: Record<string, string> = { v: String(SCOPE_VERSION) };
    switch (change.kind) {
      case "set":
      case "reset": {
        const value = change.kind === "set" ? change.value : "follow";
        const field = decisionField(change.key as string);
        if (value === "follow") multi.hdel(key, field);
        else set[field] = decisionValue(keyValueOf(value));
        break;
      }
      case "toolset":
        if (change.name === null) multi.hdel(key, TOOLSET_FIELD);
        else set[TOOLSET_FIELD] = change.name;
        break;
      case "mode":
        if (change.mode === null) multi.hdel(key, MODE_FIELD);
        else set[MODE_FIELD] = change.mode;
        break;
    }
    multi.hset(key, set);
    multi.hgetall(key);
    const replies = await runTransaction(multi);
    return this.#layer(replies.at(-1) as Record<string, string>, key);
  }

  /** The scope's skill toggles (reserved for /skills). */
  async readSkills<S extends ScopeKind>(scope: S, where: ScopeRef<S>): Promise<SkillToggles> {
    const key = this.keys.scope(scope, where);
    return this.#skills(await this.#hash(key), key);
  }

  /** Switches one skill on, off, or back to follow; returns the toggles right after. */
  async applySkill<S extends ScopeKind>(
    scope: S,
    where: ScopeRef<S>,
    name: string,
    value: Switch,
  ): Promise<SkillToggles> {
    if (!SKILL_NAME.test(name)) {
      throw new StoreInputError(
        `${JSON.stringify(name)} is not a skill name: use 1-64 letters, digits, ".", "_" or "-", as in the skill's SKILL.md.`,
      );
    }
    checkSwitch(name, value);
    const key = this.keys.scope(scope, where);
    const field = `${SKILL_PREFIX}${name}`;
    const multi = this.redis.multi();
    if (value === "follow") multi.hdel(key, field);
    multi.hset(key, {
      v: String(SCOPE_VERSION),
      ...(value === "follow" ? {} : { [field]: decisionValue(value === "on") }),
    });
    multi.hgetall(key);
    const replies = await runTransaction(multi);
    return this.#skills(replies.at(-1) as Record<string, string>, key);
  }

  async #hash(key: string): Promise<Record<string, string>> {
    const { hash, problem } = await readHash(this.redis, key);
    if (problem !== undefined) this.warnings.warn(key, `${problem}; the scope reads as empty.`);
    return hash;
  }

  #layer(hash: Readonly<Record<string, string>>, key: string): ScopeLayer {
    const { decisions, damaged } = readDecisions(hash);
    for (const [field, why] of damaged) this.#damaged(key, field, why);
    const layer: { keys?: Record<string, KeyValue>; toolset?: string; mode?: LoadMode } = {};
    if (Object.keys(decisions).length > 0) layer.keys = decisions;
    const toolset = hash[TOOLSET_FIELD];
    if (toolset !== undefined) {
      if (toolset.length > 0) layer.toolset = toolset;
      else this.#damaged(key, TOOLSET_FIELD, "the toolset name is empty");
    }
    const mode = hash[MODE_FIELD];
    if (mode !== undefined) {
      if (isLoadMode(mode)) layer.mode = mode;
      else this.#damaged(key, MODE_FIELD, `${JSON.stringify(mode)} is not a load mode`);
    }
    return layer;
  }

  /**
   * A damaged toggle is data, not a crash: it warns, and the scope keeps
   * serving the last good value this process read for that skill, if any.
   */
  #skills(hash: Readonly<Record<string, string>>, key: string): SkillToggles {
    const skills: SkillToggles = {};
    const lastGood = this.#lastGoodSkills.get(key) ?? {};
    for (const field of Object.keys(hash).sort()) {
      if (!field.startsWith(SKILL_PREFIX)) continue;
      const name = field.slice(SKILL_PREFIX.length);
      const value = hash[field];
      if (value === "1" || value === "0") {
        skills[name] = value === "1";
        continue;
      }
      const kept = Object.hasOwn(lastGood, name) ? lastGood[name] : undefined;
      if (kept !== undefined) skills[name] = kept;
      this.#damaged(
        key,
        field,
        `value ${JSON.stringify(value)} is not "1" (on) or "0" (off)${kept === undefined ? "" : `; keeping the last good value (${kept ? "on" : "off"})`}`,
      );
    }
    this.#lastGoodSkills.delete(key);
    this.#lastGoodSkills.set(key, skills);
    // Bounded: the least recently read scopes are forgotten first.
    if (this.#lastGoodSkills.size > 10_000) {
      this.#lastGoodSkills.delete(this.#lastGoodSkills.keys().next().value as string);
    }
    return skills;
  }

  #damaged(key: string, field: string, why: string): void {
    this.warnings.warn(
      `${key} ${field}`,
      `Skipping damaged field ${field} of ${key}: ${why}. Set it again from chat, or delete the field.`,
    );
  }
}
