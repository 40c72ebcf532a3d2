import type { Api } from "grammy";
import type { Chat, User } from "grammy/types";
import type { Actor } from "../../core/commands/index.ts";

/** How long Telegram's word on who administers a chat is trusted. */
const ADMIN_CACHE_MS = 5 * 60_000;

/**
 * Who sent a command or pressed a button, and whether Telegram says they
 * administer the chat (`getChatMember`: creator or administrator), which is
 * what the chat's workspace and channel scopes ask for. In a private chat
 * the person is the chat's only member and administers its scopes; an
 * anonymous group admin (posting as the group) is an admin. Answers are
 * cached for five minutes per chat and person; a failed lookup is no admin.
 */
export class ChatAdmins {
  readonly #cache = new Map<string, { admin: boolean; at: number }>();

  constructor(
    private readonly api: () => Api,
    private readonly now: () => number = Date.now,
  ) {}

  async actor(chat: Chat, from: User | undefined, senderChat?: Chat): Promise<Actor> {
    if (senderChat !== undefined && senderChat.id === chat.id) {
      return { id: `telegram:${chat.id}`, isPlatformAdmin: true };
    }
    const id = from?.id ?? senderChat?.id ?? 0;
    if (chat.type === "private") return { id: `telegram:${id}`, isPlatformAdmin: true };
    if (from === undefined) return { id: `telegram:${id}`, isPlatformAdmin: false };
    return { id: `telegram:${id}`, isPlatformAdmin: await this.#isAdmin(chat.id, from.id) };
  }

  async #isAdmin(chatId: number, userId: number): Promise<boolean> {
    const key = `${chatId}:${userId}`;
    const cached = this.#cache.get(key);
    if (cached && this.now() - cached.at < ADMIN_CACHE_MS) return cached.admin;
    let admin = false;
    try {
      const member = await this.api().getChatMember(chatId, userId);
      admin = member.status === "creator" || member.status === "administrator";
    } catch {
      // Someone Telegram will not tell us about administers nothing here.
    }
    if (this.#cache.size > 10_000) this.#cache.clear();
    this.#cache.set(key, { admin, at: this.now() });
    return admin;
  }
}
