/**
 * The keys of one platform installation's own state, next to a channel's
 * ingress: which platform events it has taken (by the platform's id for the
 * event) and, for long polling, the next update to ask for.
 *
 * They sit under `<prefix>:<platform>:<installation>` (a Slack team, a
 * Discord bot user, a Telegram bot id), without a hash tag: every operation
 * on them touches one key, so each may live in any slot. The layout is what
 * running deployments hold (a poll offset lost replays a chat's updates):
 * never change it.
 */
export interface ChannelStateKeys {
  /** `<prefix>:<platform>:<installation>`. */
  readonly base: string;
  /** STRING with a TTL: where one platform event stands (`taking`, `done`). */
  event(id: string): string;
  /** STRING: the next update id long polling asks for. */
  readonly offset: string;
}

/** The channel-state keys under `base` (see {@link ChannelStateKeys}). */
export function channelStateKeys(base: string): ChannelStateKeys {
  return {
    base,
    event: (id) => `${base}:event:${id}`,
    offset: `${base}:offset`,
  };
}

/** Where a Discord-style application's commands were registered, so a scope switch removes the old copies. */
export interface CommandRegistrationKeys {
  /** SET: the guilds holding a copy of the commands. */
  readonly guilds: string;
  /** STRING: set while a global copy exists. */
  readonly global: string;
}

/**
 * Channel keys that name no installation, under `<prefix>:<platform>:<kind>:`;
 * the kinds a parser must tell apart from an installation id.
 */
export const PLATFORM_KEY_KINDS = ["thread", "commands", "sent"] as const;
