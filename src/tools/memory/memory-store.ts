import type { Redis } from "ioredis";
import { KeyScheme, type NoteKeys, type WorkspaceRef } from "../../store/keys.ts";
import { LuaScript } from "../../store/lua.ts";
import { MemoryLimitError, NoteNotFoundError } from "./errors.ts";

export type { NoteKeys } from "../../store/keys.ts";

/** Whose notes: one person in one workspace. The same person elsewhere has other notes. */
export interface NoteOwner extends WorkspaceRef {
  readonly user: string;
}

export interface Note {
  /** Short and stable: `m1`, `m2`, ... per person; never reused, unchanged when its topic is rewritten. */
  readonly id: string;
  readonly text: string;
  /** A label such as `timezone`; remembering under the same topic replaces the note. */
  readonly topic?: string;
}

export interface MemoryLimits {
  readonly maxNotes: number;
  readonly maxNoteLength: number;
}

/**
 * Adds or replaces a note. The cap is checked in the same script that adds,
 * so concurrent remembers can never exceed it. A note under an existing
 * topic replaces that note in place and does not count against the cap.
 * With a call key, a repeat of the same tool call (a resumed turn)
 * finds the note its first run stored instead of adding another.
 * Returns `{kind, id, count}`; kind `full` means nothing was stored.
 */
const REMEMBER = LuaScript.file("memory-remember-4");

/** Deletes one note and its topic entry; returns the deleted note's JSON, or false. */
const FORGET = LuaScript.file("memory-forget-2");

/**
 * Short notes about a person, per workspace, in Redis: what the `remember`,
 * `recall` and `forget` tools read and write.
 *
 * @example
 * const memory = new MemoryStore(redis, "sy", { maxNotes: 100, maxNoteLength: 500 });
 * const owner = { platform: "slack", workspace: "T1", user: "U1" };
 * await memory.remember(owner, "Prefers answers in German", "language"); // { kind: "added", note: { id: "m1", ... } }
 * await memory.list(owner); // [{ id: "m1", text: "Prefers answers in German", topic: "language" }]
 */
export class MemoryStore {
  readonly #keys: KeyScheme;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    readonly limits: MemoryLimits,
  ) {
    this.#keys = new KeyScheme(prefix);
  }

  keys(owner: NoteOwner): NoteKeys {
    return this.#keys.notes(owner);
  }

  /**
   * Stores a note, or replaces the note under `topic`. Throws a
   * {@link MemoryLimitError} when the note is too long or the person has
   * `maxNotes` notes already. `callKey` (the tool call's) makes a repeat of
   * the same call find its note rather than store a second.
   */
  async remember(
    owner: NoteOwner,
    text: string,
    topic?: string,
    callKey?: string,
  ): Promise<{ kind: "added" | "replaced"; note: Note; count: number }> {
    const clean = text.trim();
    const length = [...clean].length;
    const { maxNotes, maxNoteLength } = this.limits;
    if (length > maxNoteLength) {
      throw new MemoryLimitError(
        "note_length",
        maxNoteLength,
        `That note is ${length} characters; a note may be at most ${maxNoteLength}. Shorten it to the essentials (or split it into separate notes) and remember it again.`,
      );
    }
    const label = normalizeTopic(topic);
    const keys = this.keys(owner);
    const body = JSON.stringify(
      label === undefined ? { text: clean } : { text: clean, topic: label },
    );
    const [kind, id, count] = (await REMEMBER.run(
      this.redis,
      [keys.notes, keys.topics, keys.seq, keys.calls],
      [body, maxNotes, label ?? "", callKey ?? ""],
    )) as [string, string, number];
    if (kind === "full") {
      throw new MemoryLimitError(
        "notes_per_user",
        maxNotes,
        `Memory is full: ${count} of ${maxNotes} notes are stored for this person. Nothing was saved. Call recall to see the notes and forget one that is no longer needed, then remember again.`,
      );
    }
    const note: Note =
      label === undefined ? { id, text: clean } : { id, text: clean, topic: label };
    return { kind: kind as "added" | "replaced", note, count: Number(count) };
  }

  /** Every note of the person, oldest first. */
  async list(owner: NoteOwner): Promise<Note[]> {
    const raw = await this.redis.hgetall(this.keys(owner).notes);
    return Object.entries(raw)
      .map(([id, body]) => decodeNote(id, body))
      .sort((a, b) => idNumber(a.id) - idNumber(b.id));
  }

  /** Deletes one note; a {@link NoteNotFoundError} when the person has no note with that id. */
  async forget(owner: NoteOwner, id: string): Promise<Note> {
    const keys = this.keys(owner);
    const wanted = id.trim().toLowerCase();
    const body = await FORGET.run(this.redis, [keys.notes, keys.topics], [wanted]);
    if (typeof body !== "string") throw new NoteNotFoundError(id);
    return decodeNote(wanted, body);
  }

  /** Deletes every note of the person; returns how many there were. Ids are not reused afterwards. */
  async forgetAll(owner: NoteOwner): Promise<number> {
    const keys = this.keys(owner);
    const replies = await this.redis
      .multi()
      .hlen(keys.notes)
      .unlink(keys.notes, keys.topics)
      .exec();
    return Number(replies?.[0]?.[1] ?? 0);
  }
}

/** Topics compare without case or surrounding space: `Timezone ` and `timezone` are one topic. */
export function normalizeTopic(topic: string | undefined): string | undefined {
  const label = topic?.trim().toLowerCase();
  return label === undefined || label === "" ? undefined : label;
}

function decodeNote(id: string, body: string): Note {
  try {
    const parsed = JSON.parse(body) as { text?: unknown; topic?: unknown };
    const text = typeof parsed.text === "string" ? parsed.text : "";
    return typeof parsed.topic === "string" ? { id, text, topic: parsed.topic } : { id, text };
  } catch {
    // A note written by hand into Redis: show it as it is rather than lose it.
    return { id, text: body };
  }
}

function idNumber(id: string): number {
  const n = Number(id.slice(1));
  return Number.isFinite(n) ? n : Number.MAX_SAFE_INTEGER;
}
