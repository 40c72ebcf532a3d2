/**
 * How a test's click finds its button, the same on every platform of the
 * kit: by label, on the newest post that has it (test-platform.ts).
 */
import type { BotPost, ClickTarget, Control, PostWith } from "./test-platform.ts";

/** No button of the bot's matches a click; the message lists the ones there are. */
export class NoSuchControlError extends Error {
  override readonly name = "NoSuchControlError";
}

/** The newest post with a control matching the target, and that control. */
export function findControl<C extends Control>(
  posts: readonly PostWith<C>[],
  target: ClickTarget,
): { post: Omit<BotPost, "controls">; control: C } {
  const fits = (label: string) =>
    typeof target.label === "string" ? label === target.label : target.label.test(label);
  const candidates = target.post
    ? posts.filter((p) => p.id === target.post?.id)
    : [...posts].reverse();
  for (const post of candidates) {
    const control = post.controls.find((c) => fits(c.label));
    if (control) return { post, control };
  }
  const there = posts.flatMap((p) => p.controls.map((c) => JSON.stringify(c.label)));
  throw new NoSuchControlError(
    `No button labelled ${String(target.label)} under the bot's messages; the buttons there are: ${there.join(", ") || "none"}.`,
  );
}
