import { z } from "zod";
import { describeValue } from "../../core/config/errors.ts";
import { strictMap } from "../../core/config/section-map.ts";

/** Slack shows at most this many suggested prompts in a pane thread. */
export const MAX_SUGGESTED_PROMPTS = 4;

/** One suggested prompt: `title` on the button, `message` what the person then sends. */
export interface SuggestedPrompt {
  readonly title: string;
  readonly message: string;
}

/** Prompts for one place, and the heading above them. */
export interface PromptSet {
  readonly prompts: readonly SuggestedPrompt[];
  /** The heading above the prompts ("Try asking"); unset: Slack's own. */
  readonly title?: string;
}

/**
 * The assistant pane's suggested prompts (`slack.assistant`), deepest
 * first: the channel the person is looking at when they open the pane,
 * then their workspace, then everywhere. Where none is configured the bot
 * offers one prompt per enabled skill (assistant-prompts.ts).
 *
 * ```yaml
 * slack:
 *   assistant:
 *     title: Try asking
 *     prompts:
 *       - { title: What can you do?, message: What can you help me with? }
 *     workspaces:
 *       T0123ABCD:
 *         prompts: [{ title: Open tickets, message: Which support tickets are open? }]
 *     channels:
 *       C0123ABCD:
 *         title: About this channel
 *         prompts: [{ title: Catch me up, message: What happened in this channel today? }]
 * ```
 */
export interface SlackAssistantConfig extends Partial<PromptSet> {
  readonly workspaces: Readonly<Record<string, PromptSet>>;
  readonly channels: Readonly<Record<string, PromptSet>>;
}

const text = (what: string) =>
  z
    .string({ error: (iss) => `expected ${what}, found ${describeValue(iss.input)}.` })
    .trim()
    .min(1, { error: `expected ${what}, found an empty string.` });

const prompt = strictMap(
  { title: text("the prompt's title"), message: text("the message it sends") },
  {
    takes: "A prompt takes title: and message:.",
    notAMap: (found) =>
      `expected a map such as { title: Catch me up, message: What happened here today? }, found ${found}.`,
  },
);

const prompts = z
  .array(prompt, {
    error: (iss) => `expected a list of prompts, found ${describeValue(iss.input)}.`,
  })
  .max(MAX_SUGGESTED_PROMPTS, {
    error: `Slack shows at most ${MAX_SUGGESTED_PROMPTS} suggested prompts; keep the ${MAX_SUGGESTED_PROMPTS} that matter most.`,
  });

const promptSet = strictMap(
  { title: text("a heading").optional(), prompts },
  {
    takes: "It takes title: and prompts:.",
    notAMap: (found) => `expected a map with prompts:, found ${found}.`,
  },
);

const idMap = (pattern: RegExp, what: string, example: string) => {
  const notAnId = (input: unknown) =>
    `${describeValue(input)} is not a Slack ${what} id. Use the id (${example}), not the name.`;
  return z.record(z.string().regex(pattern, { error: (iss) => notAnId(iss.input) }), promptSet, {
    error: (iss) =>
      iss.code === "invalid_key"
        ? notAnId(iss.input)
        : `expected a map of ${what} ids to prompts, found ${describeValue(iss.input)}.`,
  });
};

/** The schema of `slack.assistant`. */
export const slackAssistantSection = strictMap(
  {
    title: text("a heading").optional(),
    prompts: prompts.optional(),
    workspaces: idMap(/^[TE][A-Z0-9]{2,}$/, "workspace", "T0123ABCD").default({}),
    channels: idMap(/^[CDG][A-Z0-9]{2,}$/, "channel", "C0123ABCD").default({}),
  },
  {
    takes: "The assistant pane takes title:, prompts:, workspaces: and channels:.",
    notAMap: (found) => `expected a map with prompts:, found ${found}.`,
  },
).transform(
  (a): SlackAssistantConfig =>
    Object.freeze({
      ...(a.title ? { title: a.title } : {}),
      ...(a.prompts ? { prompts: a.prompts } : {}),
      workspaces: Object.freeze(a.workspaces),
      channels: Object.freeze(a.channels),
    }),
);
