import type { WebClient } from "@slack/web-api";
import type {
  ConversationDirectory,
  DirectoryEntry,
  PostPermission,
} from "../../ports/directory.ts";
import { SLACK_TRAITS } from "./traits.ts";

/** Slack channel ids: public C…, private G…; people type them bare or as `<#C0123|name>`. */
const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;
const CHANNEL_LINK = /^<#([CG][A-Z0-9]+)(?:\|[^>]*)?>$/;
/** How far a membership walk goes: a channel with more members than this is checked up to here. */
const MAX_PAGES = 20;

/**
 * Slack's answers to "which channel is that" and "may this person post there",
 * from the Web API with the bot token: the bot's own channels
 * (`users.conversations`), a channel's facts (`conversations.info`) and its
 * members (`conversations.members`). Archived channels are never found.
 */
export class SlackDirectory implements ConversationDirectory {
  constructor(private readonly client: WebClient) {}

  async find(_workspace: string, ref: string): Promise<DirectoryEntry | undefined> {
    const wanted = ref.trim();
    const id = CHANNEL_LINK.exec(wanted)?.[1] ?? (CHANNEL_ID.test(wanted) ? wanted : undefined);
    if (id) {
      const info = await this.client.conversations.info({ channel: id }).catch(() => undefined);
      const channel = info?.channel;
      if (!channel?.is_member || channel.is_archived) return undefined;
      return { channel: id, name: `#${channel.name ?? id}` };
    }
    const name = wanted.replace(/^#/, "").toLowerCase();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.client.users.conversations({
        types: "public_channel,private_channel",
        exclude_archived: true,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
      const found = result.channels?.find((c) => c.name?.toLowerCase() === name);
      if (found?.id) return { channel: found.id, name: `#${found.name}` };
      cursor = result.response_metadata?.next_cursor || undefined;
      if (!cursor) return undefined;
    }
    return undefined;
  }

  async mayPost(_workspace: string, entry: DirectoryEntry, user: string): Promise<PostPermission> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.client.conversations.members({
        channel: entry.channel,
        limit: 1_000,
        ...(cursor ? { cursor } : {}),
      });
      if (result.members?.includes(user)) return { allowed: true };
      cursor = result.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    return {
      allowed: false,
      reason: `you are not a member of ${entry.name}; join it first, then ask again.`,
    };
  }

  mention(user: string): string {
    return SLACK_TRAITS.mention(user);
  }
}
