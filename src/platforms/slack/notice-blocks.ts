import type { Tombstone } from "../../core/agent/tombstone.ts";
import { formatToolsCommand } from "../../core/commands/parse.ts";
import { modeAllowsDiscovery } from "../../core/loading/modes.ts";
import type { BlockMessage } from "./blocks.ts";

/** Slack's limit on a section's text. */
const SECTION_MAX = 3000;

/** One-sentence messages in Block Kit: what a tool call's tombstone said, and errors. */

/** A plain sentence in a context block: what people see where a tool call could not run. */
export function tombstoneBlocks(tombstone: Tombstone): BlockMessage {
  return sentenceBlocks(tombstoneSentence(tombstone));
}

function tombstoneSentence(t: Tombstone): string {
  switch (t.kind) {
    case "unknown":
      return `The bot tried to use a tool named "${t.id}", which it does not have.`;
    case "absent":
      return `The bot could not use ${t.id}: ${t.reason}. Only the bot's operator can make it available.`;
    case "deferred":
      return modeAllowsDiscovery(t.mode)
        ? `The bot called ${t.id} before loading it; it loads with tool_search.`
        : `The bot could not use ${t.id}: it is not loaded in ${t.mode} mode. Load it with /tools on ${t.id}, or switch mode with /tools mode discover.`;
    case "disabled": {
      const { by } = t;
      if (by.kind === "scope" && by.scope === "runtime") {
        return `The bot could not use ${t.id}: the bot's operator turned it off at startup (${by.key}=off), and only they can turn it back on.`;
      }
      const why =
        by.kind === "scope"
          ? `it is switched off in the ${by.scope} scope${by.key === t.id ? "" : ` (${by.key}=off)`}`
          : by.kind === "toolset"
            ? `it is not in the ${by.toolset} toolset`
            : "it is not in this conversation's hand-picked list";
      // The conversation scope is the deepest a person can set, so it overrides any other.
      const command = formatToolsCommand({ verb: "on", key: t.id, scope: "conversation" });
      return `The bot could not use ${t.id}: ${why}. Turn it on here with ${command}.`;
    }
  }
}

/**
 * An error as a plain sentence, never raw JSON or a stack: a command error
 * as it stands (it already says how to fix it), anything else as "Something
 * went wrong: …" with the message, or the message inside a JSON body.
 */
export function errorBlocks(error: unknown): BlockMessage {
  return sentenceBlocks(errorSentence(error));
}

function errorSentence(error: unknown): string {
  if (typeof error === "string") return error.trim() === "" ? "Something went wrong." : error;
  if (!(error instanceof Error)) return "Something went wrong.";
  if (["CommandError", "SkillsCommandError", "SlackActionError"].includes(error.name)) {
    return error.message;
  }
  const message = readableMessage(error.message);
  if (message === "") return "Something went wrong.";
  return `Something went wrong: ${message}${/[.!?]$/.test(message) ? "" : "."}`;
}

/** The message itself, or the `error.message`/`message` inside a JSON body it quotes. */
function readableMessage(message: string): string {
  const json = /\{[\s\S]*\}/.exec(message);
  if (json !== null) {
    try {
      const body = JSON.parse(json[0]) as { error?: { message?: unknown }; message?: unknown };
      const inner = body.error?.message ?? body.message;
      if (typeof inner === "string" && inner.trim() !== "") {
        return `${message.slice(0, json.index).trim()} ${inner}`.trim();
      }
    } catch {
      // Not JSON after all: the message as it is.
    }
  }
  return message.split("\n")[0]?.trim() ?? "";
}

function sentenceBlocks(sentence: string): BlockMessage {
  const text = clip(sentence.replace(/\s+/g, " ").trim(), SECTION_MAX);
  return {
    text,
    blocks: [{ type: "context", elements: [{ type: "plain_text", text, emoji: false }] }],
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
