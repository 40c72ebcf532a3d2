import { z } from "zod";
import { describeValue } from "../../core/config/errors.ts";
import { flag } from "../../core/config/flag.ts";
import { platformSection } from "../../core/config/platform-section.ts";
import { sectionMap } from "../../core/config/section-map.ts";
import { type AccountEntry, accountAgent, accountList, accountSecret } from "../account-list.ts";

/**
 * How the Telegram channel behaves. The token and the webhook secret stay in
 * the environment (`TELEGRAM_BOT_TOKEN`, `TELEGRAM_WEBHOOK_SECRET`); the
 * other keys mirror environment variables, which win when both are set:
 *
 * ```yaml
 * telegram:
 *   mode: polling            # or webhook; default: webhook when a webhook URL is set
 *   webhook_url: https://bot.example.com/telegram   # TELEGRAM_WEBHOOK_URL
 *   api_root: http://localhost:8081                  # TELEGRAM_API_ROOT (a local Bot API server)
 *   conversation: topic      # each forum topic is its own conversation (default), or chat
 *   streaming: native        # drafts in private chats (default), or edit: post-and-edit everywhere
 *   paid_broadcast: false    # true: up to 1,000 messages/s, 0.1 Telegram Stars per message (default false)
 *   accounts:                # more bots in the same process, each with its own chats
 *     - id: sales
 *       token: ${TELEGRAM_SALES_TOKEN}
 *       agent: support       # the agent it answers as (optional)
 *       webhook_url: https://bot.example.com/telegram/sales   # optional: long polling without it
 *       paid_broadcast: true # this bot's own choice (optional; default: the section's)
 * ```
 */
export interface TelegramConfig {
  /** Unset: webhook when a webhook URL is known, else long polling. */
  readonly mode?: "polling" | "webhook";
  readonly webhookUrl?: string;
  /** Without a trailing slash: grammY appends `/bot<token>/<method>`. */
  readonly apiRoot?: string;
  /** `topic`: a forum topic is its own conversation; `chat`: the whole chat is one. */
  readonly conversation: "topic" | "chat";
  /**
   * How answers stream in private chats: `native` (unset), into a draft
   * (`sendMessageDraft`) and then posted once; `edit`, by posting and editing
   * a message, as in groups and topics.
   */
  readonly streaming?: "native" | "edit";
  /**
   * Whether the bot's new messages go as paid broadcasts
   * (`allow_paid_broadcast`): Telegram then takes up to 1,000 a second
   * from the bot instead of about 30, and takes 0.1 Telegram Stars from
   * the bot's balance for every such message. Unset: false, the free pace.
   */
  readonly paidBroadcast?: boolean;
  /**
   * More bots in this deployment, beside the one of `TELEGRAM_BOT_TOKEN`:
   * each polls (or takes its webhook) on its own, and its chats are
   * conversations of their own (their addresses carry its id). Unset: none.
   */
  readonly accounts?: readonly TelegramAccount[];
}

/** One more Telegram bot: `telegram.accounts`. */
export interface TelegramAccount extends AccountEntry {
  /** Its token, usually `${VARIABLE}`: filled from the environment when the bot starts. */
  readonly token: string;
  /** Its own webhook URL, with a path of its own; unset: long polling. */
  readonly webhookUrl?: string;
  /** Whether this bot pays for its broadcasts ({@link TelegramConfig.paidBroadcast}); unset: the section's. */
  readonly paidBroadcast?: boolean;
}

export const DEFAULT_TELEGRAM: TelegramConfig = Object.freeze({ conversation: "topic" });

const KEYS =
  "mode:, webhook_url:, api_root:, conversation:, streaming:, paid_broadcast: and accounts:";

/** An http(s) URL, without the trailing slashes that would break grammY's `apiRoot`. */
function httpUrl(what: string, example: string) {
  return z
    .string({ error: (iss) => `expected ${what}, found ${describeValue(iss.input)}.` })
    .refine(
      (text) => {
        try {
          const url = new URL(text);
          return url.protocol === "https:" || url.protocol === "http:";
        } catch {
          return false;
        }
      },
      { error: (iss) => `${describeValue(iss.input)} is not an http(s) URL. Write ${example}.` },
    )
    .transform((text) => text.replace(/\/+$/, ""));
}

const webhookUrl = httpUrl(
  "the public URL of the webhook",
  "https://bot.example.com/telegram",
).refine((text) => new URL(text).pathname !== "/", {
  error: () => "the webhook URL needs a path, e.g. https://bot.example.com/telegram.",
});

export const telegramSection = sectionMap(
  "telegram",
  {
    mode: z
      .enum(["polling", "webhook"], {
        error: (iss) =>
          `expected polling or webhook, found ${describeValue(iss.input)}. Long polling needs nothing more; webhook needs webhook_url (or TELEGRAM_WEBHOOK_URL) and TELEGRAM_WEBHOOK_SECRET.`,
      })
      .optional(),
    webhook_url: webhookUrl.optional(),
    api_root: httpUrl("the Bot API server's URL", "http://localhost:8081").optional(),
    conversation: z
      .enum(["topic", "chat"], {
        error: (iss) =>
          `expected topic or chat, found ${describeValue(iss.input)}. It says whether a forum topic or the whole chat is one conversation.`,
      })
      .default("topic"),
    streaming: z
      .enum(["native", "edit"], {
        error: (iss) =>
          `expected native or edit, found ${describeValue(iss.input)}. It says whether answers in private chats stream as drafts (native) or by posting and editing a message (edit).`,
      })
      .optional(),
    paid_broadcast: flag.optional(),
    accounts: accountList("telegram", {
      token: accountSecret("the bot's token", "TELEGRAM_SALES_TOKEN"),
      agent: accountAgent.optional(),
      webhook_url: webhookUrl.optional(),
      paid_broadcast: flag.optional(),
    })
      .superRefine((accounts, ctx) => {
        const paths = new Map<string, string>();
        for (const [i, account] of accounts.entries()) {
          if (!account.webhook_url) continue;
          const path = new URL(account.webhook_url).pathname;
          const other = paths.get(path);
          if (other !== undefined) {
            ctx.addIssue({
              code: "custom",
              path: [i, "webhook_url"],
              message: `accounts ${other} and ${account.id} both take updates at ${path}. Give each bot's webhook a path of its own, e.g. /telegram/${account.id}.`,
            });
          }
          paths.set(path, account.id);
        }
      })
      .optional(),
  },
  {
    takes: `${KEYS} (the token and the webhook secret stay in the environment: TELEGRAM_BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET)`,
  },
).transform(
  (t): TelegramConfig =>
    Object.freeze({
      ...(t.mode !== undefined ? { mode: t.mode } : {}),
      ...(t.webhook_url !== undefined ? { webhookUrl: t.webhook_url } : {}),
      ...(t.api_root !== undefined ? { apiRoot: t.api_root } : {}),
      conversation: t.conversation,
      ...(t.streaming !== undefined ? { streaming: t.streaming } : {}),
      ...(t.paid_broadcast !== undefined ? { paidBroadcast: t.paid_broadcast } : {}),
      ...(t.accounts?.length ? { accounts: telegramAccounts(t.accounts) } : {}),
    }),
);

function telegramAccounts(
  accounts: readonly {
    id: string;
    token: string;
    agent?: string;
    webhook_url?: string;
    paid_broadcast?: boolean;
  }[],
): readonly TelegramAccount[] {
  return Object.freeze(
    accounts.map(
      (a): TelegramAccount =>
        Object.freeze({
          id: a.id,
          token: a.token,
          ...(a.agent !== undefined ? { agent: a.agent } : {}),
          ...(a.webhook_url !== undefined ? { webhookUrl: a.webhook_url } : {}),
          ...(a.paid_broadcast !== undefined ? { paidBroadcast: a.paid_broadcast } : {}),
        }),
    ),
  );
}

declare module "../../core/config/platform-section.ts" {
  interface PlatformConfigs {
    /** The Telegram channel's behaviour; its token stays in the environment. */
    readonly telegram: TelegramConfig;
  }
}

/** The `telegram:` section, as the config format is handed it (src/platforms/config.ts). */
export const telegramPlatformSection = platformSection(
  "telegram",
  telegramSection,
  DEFAULT_TELEGRAM,
);
