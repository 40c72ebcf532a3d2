import type { ChatMessage } from "../agent/messages.ts";
import type { ContentPart } from "./content.ts";

/** What the model is told in place of an image it cannot see; `reason` names the model. */
export function imageNote(reason: string): string {
  return `an image was attached, but this bot cannot see images (${reason}); say so if it matters`;
}

/**
 * The messages as a turn on a model without vision sends them: a person's
 * message that carries `image_url` parts (sent while the conversation ran
 * on a vision model) becomes plain text, each image replaced by the note
 * under its `[image: ...]` label, because a text model answers image parts
 * with a 400. Only what this turn sends changes: stored history keeps the
 * images for a later turn on a vision model (rule 6). The same messages
 * and reason always give the same bytes (rule 2).
 */
export function withoutImages(
  messages: readonly ChatMessage[],
  reason: string,
): readonly ChatMessage[] {
  if (!messages.some(carriesImage)) return messages;
  const note = `(${imageNote(reason)})`;
  return messages.map((message) =>
    carriesImage(message) && message.role === "user"
      ? { ...message, content: asText(message.content as readonly ContentPart[], note) }
      : message,
  );
}

function carriesImage(message: ChatMessage): boolean {
  return (
    message.role === "user" &&
    typeof message.content !== "string" &&
    message.content.some((part) => part.type === "image_url")
  );
}

/** Text parts as the blocks a text-only message is made of; an image's note joins its label. */
function asText(parts: readonly ContentPart[], note: string): string {
  const blocks: string[] = [];
  for (const part of parts) {
    if (part.type === "text") blocks.push(part.text);
    else blocks.push(blocks.length > 0 ? `${blocks.pop()}\n${note}` : note);
  }
  return blocks.join("\n\n");
}
