import type { WebClient } from "@slack/web-api";

/** How long a channel's name is trusted: people rename channels rarely. */
const NAME_CACHE_MS = 10 * 60_000;
/** How many names are remembered; past it the oldest go first. */
const MAX_NAMES = 1_000;
/** How long a lookup may hold up the event it is for; past it the channel goes by its id. */
const LOOKUP_MS = 2_000;
/** Slack channel names: lowercase letters, digits, `-`, `_` and `.`, 80 at most. */
const CHANNEL_NAME = /^[\p{Ll}\p{Lo}\p{N}_.-]{1,80}$/u;

/**
 * Channel names from `conversations.info`, cached: the assistant pane's
 * context changes each time a person moves to another channel, and the
 * event that says so waits for its ack while the name is looked up. A
 * channel the bot may not read (a private one it is not in), a slow or
 * rate-limited answer, or a name not of Slack's form gives undefined, and
 * the channel is named by its id.
 */
export class SlackChannelNames {
  readonly #cache = new Map<string, { name: string | undefined; at: number }>();

  constructor(private readonly client: WebClient) {}

  async name(channel: string): Promise<string | undefined> {
    const cached = this.#cache.get(channel);
    if (cached && Date.now() - cached.at < NAME_CACHE_MS) return cached.name;
    const name = await this.#lookup(channel);
    this.#cache.delete(channel);
    this.#cache.set(channel, { name, at: Date.now() });
    if (this.#cache.size > MAX_NAMES) this.#cache.delete(this.#cache.keys().next().value as string);
    return name;
  }

  async #info(channel: string): Promise<string | undefined> {
    const info = await this.client.conversations.info({ channel });
    return info.channel?.name;
  }

  async #lookup(channel: string): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, LOOKUP_MS, undefined);
    });
    const asked = this.#info(channel).catch(() => undefined);
    try {
      const name = await Promise.race([asked, late]);
      return typeof name === "string" && CHANNEL_NAME.test(name) ? name : undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
