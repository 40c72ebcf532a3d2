import { createRequire } from "node:module";
import type * as BullMQ from "bullmq";
import type { ConnectionOptions } from "bullmq";
import type { LoggerPort } from "../../core/logger.ts";
import { RepeatedWarnings } from "../../observability/repeated-warnings.ts";

let loaded: typeof BullMQ | undefined;

/**
 * BullMQ, required at the first queue or worker rather than with the
 * package, so that `import("switchyard")` stays cheap (issue 29). Its
 * package is CommonJS only, so this is the very module every
 * `import ... from "bullmq"` gets: one `Queue`, one `UnrecoverableError`.
 */
export function bullmq(): typeof BullMQ {
  loaded ??= createRequire(import.meta.url)("bullmq") as typeof BullMQ;
  return loaded;
}

/** What {@link jobWorker} needs: the queue's connection and prefix, and where its errors go. */
export interface JobWorkerOptions {
  readonly connection: ConnectionOptions;
  /** BullMQ's prefix for the queue, from the key scheme. */
  readonly prefix: string;
  /** Jobs run at once; default 4. */
  readonly concurrency?: number;
  readonly logger: LoggerPort;
  /** Names the worker in its warnings: "reminder worker error". */
  readonly name: string;
}

/**
 * A worker for a queue of the bot's own jobs (reminders, schedule ticks):
 * created stopped (`autorun: false`, its owner runs it), taking over a job
 * whose worker died mid-run rather than dropping it (`maxStalledCount: 5`),
 * and warning about its connection errors without repeating them.
 */
export function jobWorker<T>(
  queue: string,
  run: (job: BullMQ.Job<T>) => Promise<unknown>,
  { connection, prefix, concurrency = 4, logger, name }: JobWorkerOptions,
): BullMQ.Worker<T> {
  const worker = new (bullmq().Worker)<T>(queue, run, {
    connection,
    prefix,
    concurrency,
    maxStalledCount: 5,
    autorun: false,
  });
  const warnings = new RepeatedWarnings(logger);
  worker.on("error", (error) =>
    warnings.warn(`${name} error`, { error: (error as Error).message }),
  );
  return worker;
}
