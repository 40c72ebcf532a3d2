import type { ConversationAddress } from "../core/conversation.ts";
import { type HashReading, readHash } from "./hash-read.ts";
import { StateStore } from "./state-store.ts";

/** What people may choose in chat besides tools and skills (`agent`: the agent bound here by `/agent`). */
export type SettingName = "model" | "queue" | "agent";

/** Where a chat setting is stored: this conversation, its whole channel, or (agents only) its workspace. */
export type SettingScope = "conversation" | "channel" | "workspace";

/** The chat settings that reach a conversation: its own, its channel's and its workspace's. */
export interface StoredSettings {
  readonly conversation: Readonly<Partial<Record<SettingName, string>>>;
  readonly channel: Readonly<Partial<Record<SettingName, string>>>;
  /** Absent where it was not read (a caller that predates workspace settings). */
  readonly workspace?: Readonly<Partial<Record<SettingName, string>>>;
}

const NAMES: readonly SettingName[] = ["model", "queue", "agent"];

/**
 * Chat settings (`/model`, `/queue`) per conversation and per channel, as
 * small hashes next to the intent and the scopes. Values are stored as
 * typed; the readers (the worker, the commands) check them against the
 * config, so a model dropped from the config is skipped, never sent.
 */
export class SettingsStore extends StateStore {
  async read(address: ConversationAddress): Promise<StoredSettings> {
    const keys = this.keysOf(address);
    const [conversation, channel, workspace] = await Promise.all([
      readHash(this.redis, keys.conversation),
      readHash(this.redis, keys.channel),
      readHash(this.redis, keys.workspace),
    ]);
    return this.fromHashes(keys, conversation, channel, workspace);
  }

  /** Where {@link read} reads: the conversation's hash in its slot, the channel's and the workspace's in the workspace's. */
  keysOf(address: ConversationAddress): Record<SettingScope, string> {
    return {
      conversation: this.#key("conversation", address),
      channel: this.#key("channel", address),
      workspace: this.#key("workspace", address),
    };
  }

  /** The settings from hashes fetched elsewhere (a turn snapshot), with the same damage reports. */
  fromHashes(
    keys: Record<SettingScope, string>,
    conversation: HashReading,
    channel: HashReading,
    workspace?: HashReading,
  ): StoredSettings {
    return {
      conversation: this.#settings(keys.conversation, conversation),
      channel: this.#settings(keys.channel, channel),
      ...(workspace !== undefined ? { workspace: this.#settings(keys.workspace, workspace) } : {}),
    };
  }

  /** Sets (or, with undefined, clears) one setting of one scope. */
  async write(
    scope: SettingScope,
    address: ConversationAddress,
    name: SettingName,
    value: string | undefined,
  ): Promise<void> {
    const key = this.#key(scope, address);
    if (value === undefined) await this.redis.hdel(key, name);
    else await this.redis.hset(key, name, value);
  }

  #key(scope: SettingScope, address: ConversationAddress): string {
    switch (scope) {
      case "conversation":
        return this.keys.conversation(address).settings;
      case "channel":
        return this.keys.channelSettings(address);
      case "workspace":
        return this.keys.workspaceSettings(address);
    }
  }

  #settings(key: string, { hash, problem }: HashReading): Partial<Record<SettingName, string>> {
    if (problem !== undefined) {
      this.warnings.warn(key, `${key} is not a hash; its chat settings are ignored until fixed.`);
      return {};
    }
    const settings: Partial<Record<SettingName, string>> = {};
    for (const name of NAMES) if (hash[name] !== undefined) settings[name] = hash[name];
    return settings;
  }
}

/** A setting as it reaches the conversation: its own over its channel's. */
export function settingOf(stored: StoredSettings, name: SettingName): string | undefined {
  return stored.conversation[name] ?? stored.channel[name];
}
