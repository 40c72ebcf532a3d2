/**
 * The message limits Slack enforces, which the fake Web API enforces too:
 * `text` is cut at 40,000 characters (Slack truncates silently, no error), and
 * blocks fail with `invalid_blocks` past 50 per message, 3,000 characters of
 * section text or 12,000 of markdown block text.
 */

// biome-ignore lint/suspicious/noExplicitAny: Web API arguments and answers are loose JSON
export type SlackArgs = Record<string, any>;
// biome-ignore lint/suspicious/noExplicitAny: Web API arguments and answers are loose JSON
export type SlackResult = Record<string, any>;

export const SLACK_TEXT_LIMIT = 40_000;
export const SLACK_BLOCKS_PER_MESSAGE = 50;
export const SLACK_SECTION_TEXT_LIMIT = 3_000;
export const SLACK_MARKDOWN_BLOCK_LIMIT = 12_000;

/** Slack's answer to blocks it refuses, with its "[ERROR] … [json-pointer:…]" messages. */
export function validateBlocks(blocks: unknown): SlackResult | undefined {
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks)) return { ok: false, error: "invalid_blocks_format" };
  const errors: string[] = [];
  if (blocks.length > SLACK_BLOCKS_PER_MESSAGE) {
    errors.push(`must be less than ${SLACK_BLOCKS_PER_MESSAGE + 1} items [json-pointer:/blocks]`);
  }
  blocks.forEach((block: SlackArgs, index) => {
    if (typeof block?.type !== "string") {
      errors.push(`missing required field: type [json-pointer:/blocks/${index}]`);
    } else if (block.type === "section" && textLength(block.text) > SLACK_SECTION_TEXT_LIMIT) {
      errors.push(
        `must be less than ${SLACK_SECTION_TEXT_LIMIT + 1} characters [json-pointer:/blocks/${index}/text/text]`,
      );
    } else if (block.type === "markdown" && textLength(block) > SLACK_MARKDOWN_BLOCK_LIMIT) {
      errors.push(
        `must be less than ${SLACK_MARKDOWN_BLOCK_LIMIT + 1} characters [json-pointer:/blocks/${index}/text]`,
      );
    }
  });
  if (errors.length === 0) return undefined;
  return {
    ok: false,
    error: "invalid_blocks",
    errors,
    response_metadata: { messages: errors.map((error) => `[ERROR] ${error}`) },
  };
}

function textLength(holder: unknown): number {
  const text = (holder as { text?: unknown } | undefined)?.text;
  return typeof text === "string" ? text.length : 0;
}
