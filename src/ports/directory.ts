/**
 * What a worker can ask a platform about its conversations, for tools that
 * reach beyond the current one (`send_message`). Every answer comes from the
 * platform at the moment of asking: a person who left a channel an hour ago
 * may not post there through the bot now (rule 8: checked when the tool runs,
 * not only when it is offered).
 */
export interface ConversationDirectory {
  /**
   * Finds a conversation of this workspace that the bot is in, by id or by
   * name as a person writes it (`#general`, `general`, `C0123`, a mention).
   * Undefined when there is none, or the bot is not in it.
   */
  find(workspace: string, ref: string): Promise<DirectoryEntry | undefined>;
  /** Whether this person may post there, and why not. */
  mayPost(workspace: string, entry: DirectoryEntry, user: string): Promise<PostPermission>;
  /** How the platform writes a mention of this person in a message. */
  mention(user: string): string;
}

export interface DirectoryEntry {
  /** The platform's id, what a post is addressed to. */
  readonly channel: string;
  /** The name people know it by, for answers such as "posted in #general". */
  readonly name: string;
}

export type PostPermission =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: string };

/** Directories by platform, next to the outbounds. */
export type Directories = Readonly<Record<string, ConversationDirectory>>;
