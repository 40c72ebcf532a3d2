import { z } from "zod";
import { describeValue } from "../../core/config/errors.ts";
import { platformSection } from "../../core/config/platform-section.ts";
import { sectionMap, strictMap } from "../../core/config/section-map.ts";
import { type AccountEntry, accountAgent, accountList, accountSecret } from "../account-list.ts";
import { type SlackAssistantConfig, slackAssistantSection } from "./assistant-config.ts";

/**
 * How the Slack channel behaves (credentials stay in the environment):
 *
 * ```yaml
 * slack:
 *   session: thread          # one conversation per thread (default) or per channel
 *   channels:
 *     C0123ABCD: { session: channel }
 *   answer_bots: false       # answer other bots' messages too
 *   assistant:               # the assistant pane's suggested prompts (assistant-config.ts)
 *     prompts: [{ title: What can you do?, message: What can you help me with? }]
 *   streaming: native        # Slack's streaming API where it applies (default), or edit
 *   accounts:                # more Slack apps in the same process
 *     - id: eng
 *       app_id: A0ENG1234    # its api_app_id: the Events API requests that name it are its own
 *       bot_token: ${SLACK_ENG_BOT_TOKEN}
 *       signing_secret: ${SLACK_ENG_SIGNING_SECRET}   # Events API; or app_token: for Socket Mode
 *       agent: engineering   # the agent it answers as (optional)
 * ```
 */
export interface SlackConfig {
  readonly session: "thread" | "channel";
  /** Per-channel overrides, by Slack channel id. */
  readonly channels: Readonly<Record<string, { readonly session: "thread" | "channel" }>>;
  readonly answerBots: boolean;
  /** The assistant pane's suggested prompts; unset: one per enabled skill. */
  readonly assistant?: SlackAssistantConfig;
  /**
   * How answers stream: `native`, Slack's streaming API in threads (falling
   * back to post-and-edit elsewhere); `edit`, post-and-edit everywhere.
   */
  readonly streaming: "native" | "edit";
  /** More Slack apps beside the one of SLACK_BOT_TOKEN; unset: none. */
  readonly accounts?: readonly SlackAccount[];
}

/** One more Slack app: `slack.accounts`. */
export interface SlackAccount extends AccountEntry {
  /** Its `api_app_id` (`A…`), which routes the Events API's requests to it. */
  readonly appId?: string;
  /** Its credentials, usually `${VARIABLE}`s: filled from the environment when the bot starts. */
  readonly botToken: string;
  readonly signingSecret?: string;
  readonly appToken?: string;
}

export const DEFAULT_SLACK: SlackConfig = Object.freeze({
  session: "thread",
  channels: Object.freeze({}),
  answerBots: false,
  streaming: "native",
});

const session = z.enum(["thread", "channel"], {
  error: (iss) =>
    `expected thread or channel, found ${describeValue(iss.input)}. It says whether a thread or a whole channel is one conversation.`,
});

export const slackSection = sectionMap(
  "slack",
  {
    session: session.default("thread"),
    channels: z
      .record(
        z.string().regex(/^[CDG][A-Z0-9]{2,}$/, {
          error: (iss) =>
            `${describeValue(iss.input)} is not a Slack channel id. Use the id (C0123ABCD), not the name.`,
        }),
        strictMap(
          { session },
          {
            takes: "A channel takes session:.",
            notAMap: (found) => `expected a map such as { session: channel }, found ${found}.`,
          },
        ),
        {
          error: (iss) =>
            iss.code === "invalid_key"
              ? `${describeValue(iss.input)} is not a Slack channel id. Use the id (C0123ABCD), not the name.`
              : `expected a map of channel ids, found ${describeValue(iss.input)}.`,
        },
      )
      .default({}),
    answer_bots: z
      .boolean({ error: (iss) => `expected true or false, found ${describeValue(iss.input)}.` })
      .default(false),
    assistant: slackAssistantSection.optional(),
    streaming: z
      .enum(["native", "edit"], {
        error: (iss) =>
          `expected native or edit, found ${describeValue(iss.input)}. It says whether answers stream with Slack's streaming API (native) or by posting and editing a message (edit).`,
      })
      .default("native"),
    accounts: accountList("slack", {
      app_id: z
        .string({ error: (iss) => `expected an app id, found ${describeValue(iss.input)}.` })
        .regex(/^A[A-Z0-9]{2,}$/, {
          error: (iss) =>
            `${describeValue(iss.input)} is not a Slack app id. Copy it from the app's Basic Information page (A0123ABCD).`,
        })
        .optional(),
      bot_token: accountSecret("the app's bot token", "SLACK_ENG_BOT_TOKEN"),
      signing_secret: accountSecret(
        "the app's signing secret",
        "SLACK_ENG_SIGNING_SECRET",
      ).optional(),
      app_token: accountSecret("the app's app-level token", "SLACK_ENG_APP_TOKEN").optional(),
      agent: accountAgent.optional(),
    })
      .superRefine((accounts, ctx) => {
        for (const [i, a] of accounts.entries()) {
          if (!a.signing_secret === !a.app_token) {
            ctx.addIssue({
              code: "custom",
              path: [i],
              message: `account ${a.id} needs signing_secret: (the Events API over HTTP) or app_token: (Socket Mode), one of them.`,
            });
          } else if (a.signing_secret && !a.app_id) {
            ctx.addIssue({
              code: "custom",
              path: [i],
              message: `account ${a.id} takes the Events API on the shared endpoint, so it needs app_id: (its api_app_id, on the app's Basic Information page) to know its requests.`,
            });
          }
        }
      })
      .optional(),
  },
  {
    takes:
      "session:, channels:, answer_bots:, assistant:, streaming: and accounts: (tokens stay in the environment: SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_APP_TOKEN)",
  },
).transform(
  (s): SlackConfig =>
    Object.freeze({
      session: s.session,
      channels: Object.freeze(s.channels),
      answerBots: s.answer_bots,
      ...(s.assistant ? { assistant: s.assistant } : {}),
      streaming: s.streaming,
      ...(s.accounts?.length ? { accounts: Object.freeze(s.accounts.map(slackAccount)) } : {}),
    }),
);

function slackAccount(a: {
  id: string;
  app_id?: string | undefined;
  bot_token: string;
  signing_secret?: string | undefined;
  app_token?: string | undefined;
  agent?: string | undefined;
}): SlackAccount {
  return Object.freeze({
    id: a.id,
    ...(a.app_id ? { appId: a.app_id } : {}),
    botToken: a.bot_token,
    ...(a.signing_secret ? { signingSecret: a.signing_secret } : {}),
    ...(a.app_token ? { appToken: a.app_token } : {}),
    ...(a.agent ? { agent: a.agent } : {}),
  });
}

declare module "../../core/config/platform-section.ts" {
  interface PlatformConfigs {
    /** The Slack channel's behaviour; its credentials stay in the environment. */
    readonly slack: SlackConfig;
  }
}

/** The `slack:` section, as the config format is handed it (src/platforms/config.ts). */
export const slackPlatformSection = platformSection("slack", slackSection, DEFAULT_SLACK);
