import { z } from "zod";
import { untrustedText } from "../../core/agent/untrusted-text.ts";
import { defineTool } from "../../core/tools/tool.ts";
import { ownerOf } from "../owner.ts";
import { answering } from "../refusals.ts";
import { MemoryLimitError, NoteNotFoundError } from "./errors.ts";
import type { MemoryStore, Note } from "./memory-store.ts";

/** A note over a limit, or a forget of a note that is not there, is the tool's answer. */
const REFUSALS = [MemoryLimitError, NoteNotFoundError];

export function rememberTool(store: MemoryStore) {
  const { maxNoteLength } = store.limits;
  return defineTool({
    id: "remember",
    description:
      "Save a short note about the person you are talking to (a preference, a fact they told you) for later conversations in this workspace. A topic keeps one note per subject: the same topic replaces its note.",
    parameters: z.object({
      text: z
        .string()
        .trim()
        .min(1, { error: "the note is empty; write what to remember." })
        .describe(
          `The note, at most ${maxNoteLength} characters, e.g. "Prefers answers in German."`,
        ),
      topic: z
        .string()
        .trim()
        .max(64, { error: "a topic is a short label of at most 64 characters, e.g. timezone." })
        .optional()
        .describe('A short label, e.g. "timezone".'),
    }),
    effects: true,
    execute: ({ text, topic }, ctx) =>
      answering(async () => {
        const {
          kind,
          note,
          count: used,
        } = await store.remember(ownerOf(ctx), text, topic, ctx.callKey);
        const what = kind === "replaced" ? "Updated" : "Remembered";
        return `${what} ${describeNote(note)} (${used} of ${store.limits.maxNotes} notes used).`;
      }, REFUSALS),
  });
}

export function recallTool(store: MemoryStore) {
  return defineTool({
    id: "recall",
    description:
      "List the notes saved about the person you are talking to, or only those matching a query. Use it before answering questions that depend on what they told you earlier.",
    parameters: z.object({
      query: z
        .string()
        .trim()
        .optional()
        .describe("Words to look for in the notes and their topics; leave out to list all notes."),
    }),
    execute: ({ query }, ctx) =>
      answering(async () => {
        const notes = await store.list(ownerOf(ctx));
        if (notes.length === 0) return "No notes are saved for this person yet.";
        if (query === undefined || query === "") {
          return `${count(notes.length)}:\n${recalled(notes)}`;
        }
        const found = notes.filter((note) => matchesQuery(note, query));
        if (found.length === 0) {
          return `No note matches ${JSON.stringify(query)} (${count(notes.length)} saved; call recall without a query to see them all).`;
        }
        return `${found.length} of ${count(notes.length)} match ${JSON.stringify(query)}:\n${recalled(found)}`;
      }, REFUSALS),
  });
}

export function forgetTool(store: MemoryStore) {
  return defineTool({
    id: "forget",
    description:
      "Delete a note saved about the person you are talking to, by its id (from recall), or every note of theirs with all: true. Use it when they ask you to forget something or a note is out of date.",
    parameters: z.object({
      id: z.string().trim().optional().describe('The note\'s id as recall shows it, e.g. "m3".'),
      all: z
        .boolean()
        .optional()
        .describe(
          "true to delete every note of this person; only when they asked for exactly that.",
        ),
    }),
    execute: ({ id, all }, ctx) =>
      answering(async () => {
        if (all === true && id) {
          return "Give either id (one note) or all: true (every note), not both.";
        }
        if (all === true) {
          const forgotten = await store.forgetAll(ownerOf(ctx));
          if (forgotten === 0) return "There were no notes to forget.";
          return forgotten === 1 ? "Forgot the only note." : `Forgot all ${forgotten} notes.`;
        }
        if (!id) {
          return "Say which note to forget: give its id (call recall to see the ids), or all: true to forget every note.";
        }
        const note = await store.forget(ownerOf(ctx), id);
        return `Forgot ${describeNote(note)}.`;
      }, REFUSALS),
  });
}

/** Every word of the query appears in the note's text or topic, ignoring case. */
export function matchesQuery(note: Note, query: string): boolean {
  const haystack = `${note.topic ?? ""} ${note.text}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== "")
    .every((word) => haystack.includes(word));
}

function count(notes: number): string {
  return notes === 1 ? "1 note" : `${notes} notes`;
}

/**
 * Notes as recall lists them: untrusted text, since a note may hold words
 * the model took from a page or a file in an earlier conversation.
 */
function recalled(notes: readonly Note[]): string {
  return untrustedText("saved notes", notes.map((n) => `- ${describeNote(n)}`).join("\n"));
}

function describeNote(note: Note): string {
  return `${note.id}${note.topic === undefined ? "" : ` [${note.topic}]`}: ${JSON.stringify(note.text)}`;
}
