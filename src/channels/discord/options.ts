import type { DiscordCommandScope, DiscordConfig } from "../../core/config/index.ts";

/** What the channel is built from: its credentials, where its API is, and the config section it reads. */
export interface DiscordChannelOptions {
  readonly token: string;
  /** The REST base, e.g. a proxy or a test's fake: `http://host/api`. */
  readonly apiUrl?: string;
  /** The config's `discord:` section, read on every message so a reload applies at once; default: the bot's config. */
  readonly settings?: () => DiscordConfig;
  /** Where the commands are registered, over the config's `commands:` (DISCORD_COMMANDS). */
  readonly commands?: DiscordCommandScope;
  /** DISCORD_APPLICATION_ID: registers the commands for it instead of the one the client logs in as. */
  readonly applicationId?: string;
  /**
   * How long `/tools` or `/skills` may take before the person gets an error
   * instead of "thinking…" (default 20 s; Discord keeps the answer open 15 min).
   */
  readonly interactionDeadlineMs?: number;
}
