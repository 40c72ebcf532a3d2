import { z } from "zod";
import { describeValue } from "../../core/config/errors.ts";
import type { PlatformSection } from "../../core/config/platform-section.ts";
import { sectionMap, strictMap } from "../../core/config/section-map.ts";
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
  },
  {
    takes:
      "session:, channels:, answer_bots:, assistant: and streaming: (tokens stay in the environment: SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_APP_TOKEN)",
  },
).transform(
  (s): SlackConfig =>
    Object.freeze({
      session: s.session,
      channels: Object.freeze(s.channels),
      answerBots: s.answer_bots,
      ...(s.assistant ? { assistant: s.assistant } : {}),
      streaming: s.streaming,
    }),
);

declare module "../../core/config/platform-section.ts" {
  interface PlatformConfigs {
    /** The Slack channel's behaviour; its credentials stay in the environment. */
    readonly slack: SlackConfig;
  }
}

/** The `slack:` section, as the config format is handed it (src/platforms/config.ts). */
export const slackPlatformSection: PlatformSection<"slack"> = Object.freeze({
  name: "slack",
  schema: slackSection,
  defaults: DEFAULT_SLACK,
});
