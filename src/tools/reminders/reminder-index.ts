import type { Redis } from "ioredis";
import { KeyScheme, type ReminderKeys } from "../../store/keys.ts";
import { LuaScript } from "../../store/lua.ts";
import { decodeReminder, type Reminder, type ReminderOwner } from "./reminder.ts";

/** Adds a reminder unless the person has the most pending already; see the script. */
const ADD = LuaScript.file("reminder-add-1");

/**
 * Each person's pending reminders in one workspace: a HASH of id -> reminder
 * JSON under the person's own hash tag. The delayed jobs are the truth about
 * what fires; this is how a person's reminders are listed (and capped)
 * without scanning every job in the queue.
 */
export class ReminderIndex {
  readonly #keys: ReminderKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.#keys = new KeyScheme(prefix).reminders();
  }

  /** `<prefix>:{rem:<platform>:<workspace>:<user>}:pending`. */
  key(owner: ReminderOwner): string {
    return this.#keys.pending(owner);
  }

  /** Adds it, unless the person has `max` pending already (checked and added in one script). */
  async add(reminder: Reminder, max: number): Promise<boolean> {
    const added = await ADD.run(
      this.redis,
      [this.key(reminder)],
      [reminder.id, JSON.stringify(reminder), max],
    );
    return added === 1;
  }

  async get(owner: ReminderOwner, id: string): Promise<Reminder | undefined> {
    const body = await this.redis.hget(this.key(owner), id);
    return body === null ? undefined : decodeReminder(JSON.parse(body));
  }

  async remove(owner: ReminderOwner, id: string): Promise<boolean> {
    return (await this.redis.hdel(this.key(owner), id)) === 1;
  }

  /** The person's pending reminders, soonest first. Unreadable entries are skipped, not fatal. */
  async list(owner: ReminderOwner): Promise<Reminder[]> {
    const raw = await this.redis.hvals(this.key(owner));
    const reminders: Reminder[] = [];
    for (const body of raw) {
      try {
        reminders.push(decodeReminder(JSON.parse(body)));
      } catch {
        // A hand-edited entry must not hide the rest of the list.
      }
    }
    return reminders.sort((a, b) => a.dueAt - b.dueAt || a.id.localeCompare(b.id));
  }
}
