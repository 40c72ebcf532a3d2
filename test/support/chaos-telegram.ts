import { fileURLToPath } from "node:url";
import type { User } from "grammy/types";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { type FakeTelegram, startFakeTelegram } from "../../src/testing/fakes/telegram-api.ts";
import type { KillMoment } from "./chaos-fleet.ts";
import { CHAOS } from "./chaos-knobs.ts";
import { hasTag } from "./chaos-model.ts";
import type { ChaosPlatform } from "./chaos-scenario.ts";
import { isPartial } from "./chaos-slack.ts";

const WRITES = new Set(["sendMessage", "editMessageText"]);

/**
 * Telegram's documented window. The Bot API takes no idempotency key and
 * cannot list a chat's messages, so a worker killed after Telegram took its
 * sendMessage (Telegram carries out a request whose sender died on the
 * way) and before it recorded the message id cannot learn the
 * message exists: the run that resumes the turn sends it again, and the
 * first copy stays as it was (a stuck start of the answer). Each kill inside
 * that window may leave at most this many extra messages; a double with no
 * such kill is a bug.
 */
export const TELEGRAM_DOUBLES_PER_WINDOW_KILL = 1;

/** The open-DMs config with private chats streaming by edits (`CHAOS_TELEGRAM_STREAMING=edit`). */
const EDITS_CONFIG = fileURLToPath(
  new URL("../fixtures/access/open-dms-telegram-edits.yaml", import.meta.url),
);
/** How long after Telegram's answer a worker may take to record it: the end of the window. */
export const TELEGRAM_RECORD_GRACE_MS = 100;
/** A streamed message counts as between edits once nothing was written to its chat for this long. */
const QUIET_MS = 100;

/** A file a person sends with a message in a scenario. */
export interface ChaosDocument {
  readonly bytes: Uint8Array;
  readonly name: string;
  readonly mime: string;
}

export interface TelegramChaos extends ChaosPlatform {
  readonly fake: FakeTelegram;
  /** The person who writes in conversation `c`, in a private chat of their own. */
  person(conversation: number): User;
  close(): Promise<void>;
}

/**
 * Telegram for the chaos scenarios: the fake Bot API with a round trip per
 * call (long polls aside), and one private chat per conversation.
 */
export async function telegramChaos(
  delayMs: number,
  {
    webhook,
    replays = 0,
    files,
  }: {
    /** Take updates by webhook on this port, with this secret, instead of long polling. */
    webhook?: { port: number; secret: string };
    /** With a webhook: every update is posted again this many times, alongside Telegram's own delivery. */
    replays?: number;
    /** A document sent with the message of this tag (its caption), e.g. a document bomb among the traffic. */
    files?: (tag: string) => ChaosDocument | undefined;
  } = {},
): Promise<TelegramChaos> {
  const telegram = await startFakeTelegram({ roundTripMs: delayMs });
  const person = (c: number): User => ({
    id: 6_000 + c,
    is_bot: false,
    first_name: `Person ${c}`,
    username: `person_${c}`,
  });
  const opened = new Set<number>();
  const addressOf = (chat: number): ConversationAddress => ({
    platform: "telegram",
    workspace: String(chat),
    channel: String(chat),
    conversation: String(chat),
  });

  return {
    name: "telegram",
    fake: telegram,
    delayMs,
    person,
    env: () => ({
      ...(CHAOS.telegramStreaming === "edit" ? { SWITCHYARD_CONFIG: EDITS_CONFIG } : {}),
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      ...(webhook
        ? {
            SWITCHYARD_HTTP_PORT: String(webhook.port),
            TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${webhook.port}/telegram`,
            TELEGRAM_WEBHOOK_SECRET: webhook.secret,
          }
        : {}),
    }),
    async send(conversation, tag) {
      const from = person(conversation);
      if (!opened.has(conversation)) {
        telegram.addChat({ id: from.id, type: "private", title: from.first_name });
        opened.add(conversation);
      }
      const file = files?.(tag);
      const update = file
        ? telegram.userSends({
            chat: from.id,
            from,
            caption: tag,
            extra: {
              document: {
                ...telegram.addFile(file.bytes, file.name),
                file_name: file.name,
                mime_type: file.mime,
              },
            },
          })
        : telegram.userSends({ chat: from.id, from, text: tag });
      if (webhook && replays > 0) {
        await Promise.all(
          Array.from({ length: replays }, () => telegram.postToWebhook(update, webhook.secret)),
        );
      }
    },
    address: (conversation) =>
      opened.has(conversation) ? addressOf(person(conversation).id) : undefined,
    shown: (conversation) => telegram.botMessages(person(conversation).id).map((m) => m.text ?? ""),
    moments: () => ({
      // A streamed message shows part of the answer and nothing for its chat is on its way.
      "while streaming": () => {
        // Written to lately or still being written to: inside a send's window, not between edits.
        const now = Date.now();
        const writing = new Set(
          telegram.calls
            .filter(
              (c) =>
                (WRITES.has(c.method) || c.method === "sendMessageDraft") &&
                (c.answeredAt ?? now) > now - QUIET_MS,
            )
            .map((c) => Number(c.params.chat_id)),
        );
        for (const c of opened) {
          const chat = person(c).id;
          if (writing.has(chat)) continue;
          const partial = telegram.botMessages(chat).find((m) => isPartial(m.text ?? ""));
          if (partial) return { address: addressOf(chat), kind: "while streaming" };
          // A draft (private chats stream as drafts) shows part of an answer not yet sent.
          const bot = telegram.botMessages(chat).at(-1);
          const draft = telegram.drafts.filter((d) => d.chat === chat).at(-1);
          if (draft && isPartial(draft.text) && draft.at > (bot?.date ?? 0) * 1_000) {
            return { address: addressOf(chat), kind: "while streaming" };
          }
        }
        return undefined;
      },
      // Telegram has carried out a send or edit of an answer; its caller has not heard back yet.
      "post in flight": (): KillMoment | undefined => {
        for (const call of telegram.inFlight()) {
          if (!WRITES.has(call.method) || call.appliedAt === undefined) continue;
          if (!hasTag(String(call.params.text ?? ""))) continue;
          return { address: addressOf(Number(call.params.chat_id)), kind: "post in flight" };
        }
        return undefined;
      },
    }),
    busy: () => telegram.inFlight().some((c) => WRITES.has(c.method)),
    // Per kill, every conversation whose turn it interrupted with a send inside its window.
    killsInSendWindow: (kills) =>
      kills
        .flatMap((kill) => kill.held.map((conversation) => ({ at: kill.at, conversation })))
        .filter((kill) =>
          telegram.calls.some(
            (c) =>
              c.method === "sendMessage" &&
              String(c.params.chat_id) === kill.conversation &&
              c.at <= kill.at &&
              kill.at <= (c.answeredAt ?? Number.POSITIVE_INFINITY) + TELEGRAM_RECORD_GRACE_MS,
          ),
        ).length,
    orphanedPosts: () =>
      telegram.calls.filter((c) => c.method === "sendMessage" && c.clientGone).length,
    close: () => telegram.close(),
  };
}
