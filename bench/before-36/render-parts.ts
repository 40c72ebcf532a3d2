/**
 * Telegram's renderParts as it was before issue 36 (commit 7468101), kept
 * for `npm run bench -- stream-render` to measure the path it replaced in
 * the same run: the HTML was taken apart character by character to measure
 * it, then each part again to see that it shows something.
 */
import { escapeHtml } from "../../src/platforms/telegram/format.ts";
import {
  splitTelegramHtml,
  visibleLength,
  visibleText,
} from "../../src/platforms/telegram/html-split.ts";
import { TELEGRAM_TEXT_LIMIT } from "../../src/platforms/telegram/outbound.ts";

/** An answer's messages, its HTML from `render` (the stream the answer's drafts share). */
export function renderPartsBefore(
  render: (markdown: string) => string,
  markdown: string,
): string[] {
  const parts = split(render(markdown)).filter((part) => /\S/.test(visibleText(part)));
  if (parts.length > 0) return parts;
  return split(escapeHtml(markdown.trim() === "" ? "…" : markdown));
}

/** splitTelegramHtml as it was: the HTML measured before anything else. */
function split(html: string): string[] {
  return visibleLength(html) <= TELEGRAM_TEXT_LIMIT
    ? [html]
    : splitTelegramHtml(html, TELEGRAM_TEXT_LIMIT);
}
