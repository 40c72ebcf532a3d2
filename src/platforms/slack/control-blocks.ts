import type { types } from "@slack/bolt";
import { isFeedbackPair } from "../../ports/feedback.ts";
import type { MessageControl } from "../../ports/outbound.ts";
import { splitForSlack } from "./split.ts";

/**
 * A posted message with buttons under it (an approval request's Approve,
 * Deny...): its mrkdwn in sections, then one actions block. Each button's
 * `action_id` is `control:<n>`, distinct per button as Slack requires within
 * a message, and its `value` is the control's payload exactly as given, so a
 * click is read from the click alone (block-actions.ts routes it by the
 * value, never by the position).
 *
 * @example
 * controlBlocks(toMrkdwn("Run `send_message`?"), [
 *   { payload: "ap:k3j9x0a1b2c4:a", label: "Approve", style: "primary" },
 *   { payload: "ap:k3j9x0a1b2c4:d", label: "Deny", style: "danger" },
 * ]);
 * // [{ type: "section", ... }, { type: "actions", block_id: "controls", elements: [...] }]
 */

/** Matches every control button's action id: register the click handler with it. */
export const CONTROL_ACTION = /^control:\d{1,2}$/;

/** An actions block takes at most 25 elements; a button's text at most 75 characters. */
const MAX_CONTROLS = 25;
const LABEL_MAX = 75;
/** The sections leave room under Slack's 50 blocks for the actions block. */
const MAX_SECTIONS = 45;

export function controlBlocks(
  mrkdwn: string,
  controls: readonly MessageControl[],
  { feedbackBlock = true }: { readonly feedbackBlock?: boolean } = {},
): types.KnownBlock[] {
  // A request is short (the worker cuts its arguments); a longer text still fits, in sections.
  const [chunk] = splitForSlack(mrkdwn, { maxSections: MAX_SECTIONS });
  const sections = (chunk?.sections ?? []).filter((s) => s.trim() !== "");
  const blocks: types.KnownBlock[] = sections.map((text) => ({
    type: "section",
    text: { type: "mrkdwn", text },
  }));
  blocks.push(controlsBlock(controls, { feedbackBlock }));
  return blocks;
}

/**
 * The block of buttons alone: Slack's feedback buttons for an answer's
 * 👍 / 👎 (unless `feedbackBlock` is off), else an actions block. A
 * natively streamed answer puts it under its text when its stream stops.
 */
export function controlsBlock(
  controls: readonly MessageControl[],
  { feedbackBlock = true }: { readonly feedbackBlock?: boolean } = {},
): types.KnownBlock {
  return feedbackBlock && isFeedbackPair(controls)
    ? feedbackButtons(controls)
    : actionsBlock(controls);
}

/**
 * An answer's 👍 / 👎 as Slack's own feedback buttons (a `context_actions`
 * block holding one `feedback_buttons` element): the thumbs Slack shows
 * under AI answers. A click comes back as a block action whose `value` is
 * the pressed button's, so it is read like any other control's.
 */
function feedbackButtons(controls: readonly MessageControl[]): types.KnownBlock {
  const [up, down] = controls as [MessageControl, MessageControl];
  // No block_id: Slack asks for a fresh one per message and per update, and makes one itself.
  return {
    type: "context_actions",
    elements: [
      {
        type: "feedback_buttons",
        action_id: "control:0",
        positive_button: {
          text: { type: "plain_text", text: up.label, emoji: true },
          accessibility_label: "Rate this answer as good",
          value: up.payload,
        },
        negative_button: {
          text: { type: "plain_text", text: down.label, emoji: true },
          accessibility_label: "Rate this answer as bad",
          value: down.payload,
        },
      },
    ],
  };
}

function actionsBlock(controls: readonly MessageControl[]): types.KnownBlock {
  return {
    type: "actions",
    block_id: "controls",
    elements: controls.slice(0, MAX_CONTROLS).map(
      (control, i): types.Button => ({
        type: "button",
        action_id: `control:${i}`,
        // Labels are the bot's own words, but plain_text is never parsed for mentions anyway.
        text: { type: "plain_text", text: clip(control.label, LABEL_MAX), emoji: true },
        value: control.payload,
        ...(control.style ? { style: control.style } : {}),
      }),
    ),
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
