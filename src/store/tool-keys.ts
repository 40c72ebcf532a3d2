import { createHash } from "node:crypto";
import type { PersonRef } from "./key-types.ts";
import { scheduleQueuePrefix } from "./queue-keys.ts";

/**
 * The keys of one person's notes in one workspace (`remember`, `recall`,
 * `forget`), e.g. "sy:{mem:slack:T1:U1}:notes". All share the person's
 * `{mem:...}` hash tag, so one script touches them all. Running deployments
 * hold notes under this layout: never change it.
 */
export interface NoteKeys {
  /** HASH: note id -> JSON `{ text, topic? }`. */
  readonly notes: string;
  /** HASH: topic -> note id. */
  readonly topics: string;
  /** STRING: the last id number handed out (kept after `forget all`, so ids are never reused). */
  readonly seq: string;
  /** HASH: tool call key -> note id, for a week: a resumed turn's repeat stores nothing new. */
  readonly calls: string;
}

/**
 * The keys of reminders besides their BullMQ queue: the id counter and the
 * ids given to tool calls share the `{reminders}` slot (one script reads
 * both), each person's pending reminders are in a `{rem:...}` slot of their
 * own. Running deployments hold reminders under this layout: never change it.
 */
export interface ReminderKeys {
  /** STRING: the last reminder id number handed out, e.g. "sy:{reminders}:seq". */
  readonly seq: string;
  /**
   * STRING with a TTL: the id one tool call got, so a resumed turn's repeat
   * gets it again; by the SHA-1 of the call key, which may be long.
   */
  call(callKey: string): string;
  /** HASH: id -> reminder JSON, one person's pending reminders in one workspace, e.g. "sy:{rem:slack:T1:U1}:pending". */
  pending(owner: PersonRef): string;
}

/** The note keys of `owner` under `prefix` (see {@link NoteKeys}). */
export function noteKeys(prefix: string, owner: PersonRef): NoteKeys {
  const tag = personTag(prefix, "mem", owner);
  return {
    notes: `${tag}:notes`,
    topics: `${tag}:topics`,
    seq: `${tag}:seq`,
    calls: `${tag}:calls`,
  };
}

/** The reminder keys under `prefix` (see {@link ReminderKeys}). */
export function reminderKeys(prefix: string): ReminderKeys {
  const tag = `${prefix}:{reminders}`;
  return {
    seq: `${tag}:seq`,
    call: (callKey) => `${tag}:call:${createHash("sha1").update(callKey).digest("hex")}`,
    pending: (owner) => `${personTag(prefix, "rem", owner)}:pending`,
  };
}

function personTag(prefix: string, kind: "mem" | "rem", owner: PersonRef): string {
  return `${prefix}:{${kind}:${[owner.platform, owner.workspace, owner.user].map(encodeURIComponent).join(":")}}`;
}

/**
 * The keys of schedules besides their BullMQ queue, all in the `{schedules}`
 * slot so one script reads a schedule's record and the id set together.
 * Running deployments hold schedules under this layout: never change it.
 */
export interface ScheduleKeys {
  /** BullMQ's prefix for the schedule tick queue: one queue, one slot of its own ("sy:{q:schedules}"). */
  readonly queuePrefix: string;
  /** SET: every schedule id, e.g. "sy:{schedules}:ids". */
  readonly ids: string;
  /** STRING: the last number handed to a schedule made in chat (`s<n>`). */
  readonly seq: string;
  /**
   * HASH: one schedule's definition (`def`, JSON; `timing`, JSON) and state
   * (`covered`, `runs`, `claim_job`, `claim_tick`, `claim_missed`,
   * `last_run`, `paused`, `paused_at`, `ended`), e.g. "sy:{schedules}:schedule:standup".
   */
  record(id: string): string;
}

/** The schedule keys under `prefix` (see {@link ScheduleKeys}). */
export function scheduleKeys(prefix: string): ScheduleKeys {
  const tag = `${prefix}:{schedules}`;
  return {
    queuePrefix: scheduleQueuePrefix(prefix),
    ids: `${tag}:ids`,
    seq: `${tag}:seq`,
    record: (id) => `${tag}:schedule:${encodeURIComponent(id)}`,
  };
}

/**
 * The keys of hook calls: which deliveries were taken, so a replay is
 * refused. All in the `{hooks}` slot; each key expires on its own.
 */
export interface HookKeys {
  /** STRING with a TTL: a delivery id taken for a hook, e.g. "sy:{hooks}:delivery:ci-failed:812". */
  delivery(name: string, delivery: string): string;
  /** STRING with a TTL: a body taken for a hook whose scheme signs no time, by its SHA-256. */
  body(name: string, digest: string): string;
}

/** The hook keys under `prefix` (see {@link HookKeys}). */
export function hookKeys(prefix: string): HookKeys {
  const tag = `${prefix}:{hooks}`;
  return {
    delivery: (name, delivery) =>
      `${tag}:delivery:${encodeURIComponent(name)}:${encodeURIComponent(delivery)}`,
    body: (name, digest) => `${tag}:body:${encodeURIComponent(name)}:${digest}`,
  };
}
