import type { Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { InboundMessage } from "../core/conversation.ts";
import { type LoggerPort, silentLogger } from "../core/logger.ts";
import {
  decideRun,
  ownersMessage,
  type Schedule,
  type ScheduledRun,
  scheduledEventId,
  scheduledText,
} from "../core/schedules/index.ts";
import type { Enqueue } from "../ports/enqueue.ts";
import type { Outbounds } from "../ports/outbound.ts";
import { KeyScheme } from "../store/keys.ts";
import { jobWorker } from "../store/redis/bullmq.ts";
import type { ScheduleState } from "../store/schedule-store.ts";
import { pauseSchedule } from "./schedule-pause.ts";
import { SCHEDULE_QUEUE, type Schedules, type TickJob } from "./schedules.ts";

/**
 * What the access gate says of a run, asked as for a message the owner
 * wrote into the target: `pass`, or refused. `pause` is set when the
 * refusal will not pass by itself (the owner is no longer let in there);
 * a limit or a spent budget only skips this run.
 */
export type ScheduleVerdict =
  | { readonly kind: "pass" }
  | { readonly kind: "refused"; readonly reason: string; readonly pause: boolean };

export type ScheduleGate = (message: InboundMessage) => Promise<ScheduleVerdict>;

export interface ScheduleWorkerOptions {
  /** BullMQ's connection; give it one of its own, with `maxRetriesPerRequest: null`. */
  readonly connection: Redis;
  readonly prefix?: string;
  readonly schedules: Schedules;
  /** Where a run's message goes: the conversation queue, as every message. */
  readonly enqueue: Enqueue;
  /** The access gate, for the owner; without it every run passes. */
  readonly gate?: ScheduleGate;
  /** To tell the owner, in a DM, that their schedule was paused (see pauseSchedule). */
  readonly outbounds?: Outbounds;
  readonly concurrency?: number;
  readonly logger?: LoggerPort;
  readonly now?: () => number;
}

/** What a tick job came to, as its return value (BullMQ keeps it for a completed job when asked). */
export type TickOutcome = "queued" | "skipped" | "paused" | "ended" | "refused" | "gone";

/** How many times a tick decides again after another job moved the schedule on. */
const CLAIM_TRIES = 5;

/**
 * Takes schedule ticks (on any number of workers, each tick once) and turns
 * each into a message from the schedule's owner in its target
 * conversation, with the event id `schedule:<id>:<tick>`. From there the
 * run is an ordinary turn: queue modes, the answer posted once, a crash
 * resumed from the checkpoint.
 *
 * A tick that comes late (every worker was down) stands for the ticks
 * missed since: with `catch_up: one` it runs once and says how many were
 * missed, with `none` it is skipped. A schedule whose owner is no longer
 * let into its target is paused with the gate's reason, and the owner is
 * told once, in a DM (see {@link pauseSchedule}).
 *
 * @example
 * const worker = new ScheduleWorker({ connection, prefix: "sy", schedules, enqueue: queue });
 * worker.start();
 * // on SIGTERM
 * await worker.close();
 */
export class ScheduleWorker {
  readonly worker: Worker<TickJob>;
  readonly #options: ScheduleWorkerOptions;
  readonly #logger: LoggerPort;
  readonly #now: () => number;

  constructor(options: ScheduleWorkerOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
    this.worker = jobWorker<TickJob>(SCHEDULE_QUEUE, (job) => this.#tick(job), {
      connection: options.connection,
      prefix: new KeyScheme(options.prefix ?? "sy").schedules().queuePrefix,
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      logger: this.#logger,
      name: "schedule worker",
    });
  }

  start(): void {
    void this.worker.run();
  }

  /** Stops taking ticks and waits for the ones in progress; pending ticks stay in Redis. */
  async close(): Promise<void> {
    await this.worker.close();
  }

  async #tick(job: Job<TickJob>): Promise<TickOutcome> {
    const { id } = job.data;
    const jobTick = tickOf(job);
    const schedules = this.#options.schedules;
    const jobId = String(job.id);
    for (let attempt = 0; attempt < CLAIM_TRIES; attempt++) {
      const state = await schedules.store.get(id);
      if (state === undefined) {
        // Removed while its tick waited: the scheduler goes too.
        await schedules.queue.removeJobScheduler(id).catch(() => false);
        return "gone";
      }
      if (state.ended !== undefined) return "ended";
      const now = this.#now();
      const decision = decideRun(state.schedule, state, jobTick, now);
      if (decision.kind === "end") {
        await schedules.end(id, decision.reason);
        return "ended";
      }
      const claim = await schedules.store.claim(id, {
        jobId,
        coveredRaw: state.coveredRaw,
        covered: decision.covered,
        ...(decision.kind === "run"
          ? { run: { tick: decision.tick, missed: decision.missed } }
          : {}),
        now,
      });
      switch (claim.kind) {
        case "conflict":
          continue;
        case "claimed":
        case "again": {
          const run: ScheduledRun =
            claim.kind === "again"
              ? { id, tick: claim.tick, missed: claim.missed }
              : {
                  id,
                  tick: (decision as { tick: number }).tick,
                  missed: (decision as { missed: number }).missed,
                };
          const outcome = await this.#run(state, run);
          if (decision.kind === "run" && decision.last) {
            await schedules.end(id, state.schedule.timing.kind === "at" ? "once" : "max_runs");
          }
          return outcome;
        }
        case "skipped":
          return "skipped";
        case "paused":
          return "paused";
        case "ended":
          return "ended";
        case "gone":
          return "gone";
      }
    }
    // Other jobs kept moving it: they ran the ticks this one would have.
    return "skipped";
  }

  /** Runs the claimed tick, and records what it came to for lists (the console's schedules page). */
  async #run(state: ScheduleState, run: ScheduledRun): Promise<TickOutcome> {
    const { outcome, note } = await this.#runOnce(state, run);
    await this.#options.schedules.store
      .note(run.id, note ?? outcome, this.#now())
      .catch((error: unknown) =>
        this.#logger.warn("could not record what a scheduled run came to", {
          schedule: run.id,
          error: (error as Error)?.message,
        }),
      );
    return outcome;
  }

  async #runOnce(
    state: ScheduleState,
    run: ScheduledRun,
  ): Promise<{ outcome: TickOutcome; note?: string }> {
    const message = scheduledMessage(state.schedule, run, this.#now());
    const verdict = (await this.#options.gate?.(message)) ?? { kind: "pass" };
    if (verdict.kind === "refused") {
      if (verdict.pause) {
        await pauseSchedule(
          {
            schedules: this.#options.schedules,
            outbounds: this.#options.outbounds,
            logger: this.#logger,
          },
          state.schedule,
          verdict.reason,
        );
        return { outcome: "paused" };
      }
      this.#logger.warn("a scheduled run was refused by a limit and skipped", {
        schedule: run.id,
        reason: verdict.reason,
      });
      return { outcome: "refused", note: `skipped: ${verdict.reason}` };
    }
    await this.#options.enqueue.enqueue(message);
    return { outcome: "queued" };
  }
}

/** The tick a job was made for: in a scheduler's job id (`repeat:<id>:<ms>`), else its data. */
export function tickOf(job: Pick<Job<TickJob>, "id" | "data" | "timestamp" | "delay">): number {
  const fromId = /:(\d+)$/.exec(String(job.id ?? ""))?.[1];
  if (fromId !== undefined) return Number(fromId);
  return job.data.tick ?? job.timestamp + (job.delay ?? 0);
}

/** The message a run puts into its target, as the owner. */
export function scheduledMessage(
  schedule: Schedule,
  run: ScheduledRun,
  now: number,
): InboundMessage {
  const text = scheduledText(schedule.prompt, run);
  return {
    ...ownersMessage(schedule, text, scheduledEventId(run), now),
    scheduled: { id: run.id, tick: run.tick, missed: run.missed },
  };
}
