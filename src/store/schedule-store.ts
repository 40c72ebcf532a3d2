import type { Redis } from "ioredis";
import {
  decodeSchedule,
  encodeSchedule,
  type Schedule,
  ScheduleDataError,
  type ScheduleRecord,
} from "../core/schedules/index.ts";
import type { ScheduleKeys } from "./keys.ts";
import { KeyScheme } from "./keys.ts";
import { LuaScript } from "./lua.ts";

/** Its scripts: src/store/lua/schedule-*.lua, each file saying what it does, its keys and arguments. */
const LUA = LuaScript.set("schedule", {
  put: 2,
  claim: 1,
  pause: 1,
  resume: 1,
  note: 1,
  withdraw: 1,
});

/** A schedule with what Redis knows of its runs: its record, and the tick bookkeeping a claim is made against. */
export interface ScheduleState extends ScheduleRecord {
  /** The latest tick handled (run or skipped on purpose), ms; its creation time before any. */
  readonly covered: number;
  /** `covered` exactly as stored: a claim is made against it. */
  readonly coveredRaw: string;
}

/** What a claim came to (see `schedule-claim-1.lua`). */
export type ClaimOutcome =
  | { readonly kind: "claimed"; readonly runs: number }
  | { readonly kind: "again"; readonly tick: number; readonly missed: number }
  | { readonly kind: "skipped" | "conflict" | "paused" | "ended" | "gone" };

/** What one tick job asks to record: its decision, made from `coveredRaw`. */
export interface ClaimRequest {
  readonly jobId: string;
  readonly coveredRaw: string;
  readonly covered: number;
  /** The run to count; undefined: the ticks up to `covered` are skipped. */
  readonly run?: { readonly tick: number; readonly missed: number };
  readonly now: number;
}

/**
 * Schedules in Redis: each one's definition and the state of its runs in
 * one hash, in the `{schedules}` slot. Every change a tick makes is one
 * script, so two workers taking ticks of one schedule at once (a catch-up
 * racing a late job, a job retried after a crash) record one run.
 */
export class ScheduleStore {
  readonly #redis: Redis;
  readonly #keys: ScheduleKeys;

  constructor(redis: Redis, keys: KeyScheme = new KeyScheme()) {
    this.#redis = redis;
    this.#keys = keys.schedules();
  }

  /**
   * Defines (or redefines) a schedule. Returns true when its timing is new:
   * its ticks start from `now`, and its job scheduler must be made again.
   */
  async put(schedule: Schedule, now: number): Promise<boolean> {
    const changed = await LUA.put.run(
      this.#redis,
      [this.#keys.record(schedule.id), this.#keys.ids],
      [encodeSchedule(schedule), JSON.stringify(schedule.timing), now, schedule.id],
    );
    return Number(changed) === 1;
  }

  /** A fresh id for a schedule made in chat: `s1`, `s2`, ... */
  async nextId(): Promise<string> {
    return `s${await this.#redis.incr(this.#keys.seq)}`;
  }

  /** The schedule and its state; undefined when there is none by that id. */
  async get(id: string): Promise<ScheduleState | undefined> {
    const fields = await this.#redis.hgetall(this.#keys.record(id));
    return fields.def === undefined ? undefined : stateOf(fields);
  }

  /** Every schedule, by id; ones that no longer decode are left out (see `ScheduleDataError`). */
  async list(): Promise<ScheduleState[]> {
    const ids = (await this.#redis.smembers(this.#keys.ids)).sort();
    const states = await Promise.all(ids.map((id) => this.get(id).catch(() => undefined)));
    return states.filter((s): s is ScheduleState => s !== undefined);
  }

  async claim(id: string, request: ClaimRequest): Promise<ClaimOutcome> {
    const reply = (await LUA.claim.run(
      this.#redis,
      [this.#keys.record(id)],
      [
        request.jobId,
        request.coveredRaw,
        request.covered,
        request.run ? 1 : 0,
        request.run?.tick ?? 0,
        request.run?.missed ?? 0,
        request.now,
      ],
    )) as [string, ...(string | number)[]];
    const [kind, a, b] = reply;
    if (kind === "claimed") return { kind, runs: Number(a) };
    if (kind === "again") return { kind, tick: Number(a), missed: Number(b) };
    return { kind: kind as "skipped" | "conflict" | "paused" | "ended" | "gone" };
  }

  /** Pauses it with a reason; true when this call did (the owner is told then, once). */
  async pause(id: string, reason: string, now: number): Promise<boolean> {
    return Number(await LUA.pause.run(this.#redis, [this.#keys.record(id)], [reason, now])) === 1;
  }

  /** Records what its latest run came to, for lists (see {@link ScheduleState.outcome}). */
  async note(id: string, outcome: string, now: number): Promise<void> {
    await LUA.note.run(this.#redis, [this.#keys.record(id)], [outcome, now]);
  }

  /** Takes back one counted run whose message never ran (see `schedule-withdraw-1.lua`). */
  async withdraw(id: string): Promise<void> {
    await LUA.withdraw.run(this.#redis, [this.#keys.record(id)], []);
  }

  /** Resumes it, its ticks counted from `now`; true when it was paused. */
  async resume(id: string, now: number): Promise<boolean> {
    return Number(await LUA.resume.run(this.#redis, [this.#keys.record(id)], [now])) === 1;
  }

  /** Marks it over: it takes no more runs, and stays listed with why. */
  async end(id: string, reason: string): Promise<void> {
    const key = this.#keys.record(id);
    // HSET on a removed schedule would bring a husk back; only an existing record is marked.
    if ((await this.#redis.exists(key)) === 1) await this.#redis.hset(key, "ended", reason);
  }

  /** Forgets it; true when there was one. */
  async remove(id: string): Promise<boolean> {
    const [deleted] = (await this.#redis
      .multi()
      .del(this.#keys.record(id))
      .srem(this.#keys.ids, id)
      .exec()) as [[Error | null, number]];
    return deleted[1] === 1;
  }
}

function stateOf(fields: Record<string, string>): ScheduleState {
  const schedule = decodeSchedule(fields.def as string);
  const coveredRaw = fields.covered ?? "0";
  const number = (raw: string | undefined) => {
    const n = Number(raw);
    if (!Number.isFinite(n))
      throw new ScheduleDataError(`Schedule ${schedule.id} has a damaged state (${raw}).`);
    return n;
  };
  return {
    schedule,
    covered: number(coveredRaw),
    coveredRaw,
    runs: number(fields.runs ?? "0"),
    ...(fields.last_run !== undefined
      ? { lastRun: { at: number(fields.last_run), tick: number(fields.claim_tick) } }
      : {}),
    ...(fields.outcome !== undefined
      ? { outcome: { text: fields.outcome, at: number(fields.outcome_at ?? "0") } }
      : {}),
    ...(fields.paused !== undefined
      ? { paused: { reason: fields.paused, at: number(fields.paused_at ?? "0") } }
      : {}),
    ...(fields.ended !== undefined ? { ended: fields.ended } : {}),
  };
}
