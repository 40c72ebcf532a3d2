/**
 * Splits an answer into messages of at most `max` characters, at the best
 * boundary available (paragraph, line, sentence, word), without breaking a
 * fenced code block: a block cut in two is closed at the end of one part and
 * reopened, with its language, at the start of the next. Joining the parts
 * without the added fences gives back the original text.
 */
export function splitMessage(text: string, max: number): string[] {
  if (max < 32)
    throw new RangeError(`splitMessage: max must be at least 32 characters, got ${max}`);
  if (text.length <= max) return [text];
  const parts: string[] = [];
  let rest = text;
  let openFence: string | undefined;
  while (rest.length > 0) {
    const prefix = openFence ? `${openFence}\n` : "";
    // Leave room for the reopened fence and a closing one.
    const budget = max - prefix.length - (openFence !== undefined ? 4 : 0) - 4;
    if (prefix.length + rest.length <= max) {
      parts.push(prefix + rest);
      break;
    }
    const cut = bestCut(rest, budget);
    const chunk = rest.slice(0, cut);
    rest = rest.slice(cut);
    const fence = fenceStateAfter(chunk, openFence);
    parts.push(
      fence ? `${prefix}${chunk}${chunk.endsWith("\n") ? "" : "\n"}\`\`\`` : prefix + chunk,
    );
    openFence = fence;
  }
  return parts;
}

function bestCut(text: string, budget: number): number {
  const window = text.slice(0, budget);
  for (const boundary of ["\n\n", "\n", ". ", " "]) {
    const at = window.lastIndexOf(boundary);
    if (at > budget / 2) return at + boundary.length;
  }
  return budget;
}

/** The fence line (e.g. "```ts") still open after `chunk`, given the one open before it. */
function fenceStateAfter(chunk: string, open: string | undefined): string | undefined {
  let state = open;
  for (const line of chunk.split("\n")) {
    const match = line.match(/^\s*(```+)(.*)$/);
    if (!match) continue;
    state = state === undefined ? `\`\`\`${(match[2] ?? "").trim()}` : undefined;
  }
  return state;
}
