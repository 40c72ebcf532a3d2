import type { Api } from "grammy";
import type { ChatMember } from "grammy/types";
import type {
  ConversationDirectory,
  DirectoryEntry,
  PostPermission,
} from "../../ports/directory.ts";
import { TELEGRAM_TRAITS } from "./traits.ts";

const CHAT_ID = /^-?\d{1,20}$/;
const USERNAME = /^@?([A-Za-z][A-Za-z0-9_]{3,31})$/;

/**
 * Telegram's answers to "which chat is that" and "may this person post
 * there", from the Bot API with the token alone. Telegram has no list of a
 * bot's chats, so a chat is named by its id or public @username; it is found
 * when the bot is a member. A person may post where they are a member who may
 * send messages (creator and administrators always; members unless the chat
 * forbids it; restricted members when allowed); a private chat only for its
 * own person.
 */
export class TelegramDirectory implements ConversationDirectory {
  #botId: number | undefined;

  constructor(private readonly api: () => Api) {}

  async find(_workspace: string, ref: string): Promise<DirectoryEntry | undefined> {
    const wanted = ref.trim();
    const chatId = CHAT_ID.test(wanted)
      ? Number(wanted)
      : USERNAME.test(wanted)
        ? `@${USERNAME.exec(wanted)?.[1]}`
        : undefined;
    if (chatId === undefined) return undefined;
    const chat = await this.api()
      .getChat(chatId)
      .catch(() => undefined);
    if (!chat) return undefined;
    const bot = await this.#member(chat.id, await this.#bot());
    if (!bot || !isMember(bot)) return undefined;
    const name =
      "title" in chat && chat.title
        ? chat.title
        : "username" in chat && chat.username
          ? `@${chat.username}`
          : String(chat.id);
    return { channel: String(chat.id), name };
  }

  async mayPost(_workspace: string, entry: DirectoryEntry, user: string): Promise<PostPermission> {
    const chat = await this.api().getChat(Number(entry.channel));
    if (chat.type === "private") {
      return chat.id === Number(user)
        ? { allowed: true }
        : { allowed: false, reason: "that is someone else's private chat with me." };
    }
    const member = await this.#member(chat.id, Number(user));
    if (!member || !isMember(member)) {
      return { allowed: false, reason: `you are not a member of ${entry.name}.` };
    }
    const chatAllows = chat.permissions?.can_send_messages !== false;
    const allowed =
      member.status === "creator" ||
      member.status === "administrator" ||
      (member.status === "member" && chatAllows) ||
      (member.status === "restricted" && member.can_send_messages);
    return allowed
      ? { allowed: true }
      : { allowed: false, reason: `you may not send messages in ${entry.name}.` };
  }

  mention(user: string): string {
    return TELEGRAM_TRAITS.mention(user);
  }

  async #member(chatId: number, userId: number): Promise<ChatMember | undefined> {
    return this.api()
      .getChatMember(chatId, userId)
      .catch(() => undefined);
  }

  async #bot(): Promise<number> {
    this.#botId ??= (await this.api().getMe()).id;
    return this.#botId;
  }
}

function isMember(member: ChatMember): boolean {
  return (
    member.status === "creator" ||
    member.status === "administrator" ||
    member.status === "member" ||
    (member.status === "restricted" && member.is_member)
  );
}
