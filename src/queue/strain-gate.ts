import type {
  GetNextJobOptions,
  Job,
  JobJsonRaw,
  Processor,
  RedisClient,
  Worker,
  WorkerOptions,
} from "bullmq";
import { bullmq } from "../store/redis/bullmq.ts";

/**
 * Whether this process is strained ({@link BackPressure}), for the BullMQ
 * workers that take its turns ({@link gatedWorker}): they hold their fetches
 * back while it is, and fetch again the moment it recovers.
 */
export class StrainGate {
  #strained = false;
  readonly #recovery = new Set<() => void>();

  get strained(): boolean {
    return this.#strained;
  }

  update(strained: boolean): void {
    if (strained === this.#strained) return;
    this.#strained = strained;
    if (!strained) for (const listener of this.#recovery) listener();
  }

  /** Calls `listener` at each recovery; returns how to stop. */
  onRecovery(listener: () => void): () => void {
    this.#recovery.add(listener);
    return () => this.#recovery.delete(listener);
  }
}

/** BullMQ's private fetch (`Worker._getNextJob`, 5.81), which its main loop calls for each new job. */
type NextJob = (
  client: RedisClient,
  bclient: RedisClient,
  token: string,
  options?: GetNextJobOptions,
) => Promise<Job | undefined>;

/**
 * A BullMQ worker that, while `gate` is strained, takes a new job only when
 * it holds none: the jobs it runs go on, the rest wait in Redis where another
 * worker may take them, and a worker strained for good still makes progress,
 * one job at a time. When the gate recovers it takes jobs at once.
 *
 * Lowering `concurrency` does not do this: BullMQ 5.81's main loop looks at
 * its concurrency only when one of its jobs ends (it waits in
 * `asyncFifoQueue.fetch()`), so a worker that recovered took nothing until
 * its running turn ended, minutes for a long agentic turn, forever when the
 * running turns wait for the others to start. Instead every way BullMQ takes
 * a job is held while strained:
 *
 * - the main loop's fetch (`_getNextJob`) waits before it reaches Redis; a
 *   job's end wakes it, and if the worker is still strained it returns no
 *   job, so that BullMQ's loop turns and runs what it already holds;
 * - a fetch whose blocking wait for a job began before the strain waits
 *   after the wait (in `moveToActive`), with the job still in Redis; BullMQ's
 *   loop is not waiting on it then (it set `waiting` and moved on);
 * - the "fetch next" of a job's end (`moveToFinished` takes the next job in
 *   the same call) is asked for only as the loop would fetch.
 *
 * `close()` and `pause()` open every held fetch, which then returns no job
 * (BullMQ's close waits for its main loop). A fetch that BullMQ's own
 * `getNextJob(token, { block: false })` makes returns no job while held.
 */
export function gatedWorker<T>(
  name: string,
  processor: Processor<T>,
  options: WorkerOptions,
  gate: StrainGate,
): Worker<T> {
  GatedWorker ??= gatedWorkerClass();
  return new GatedWorker<T>(name, processor, options, gate);
}

let GatedWorker: ReturnType<typeof gatedWorkerClass> | undefined;

// Made at the first worker, not at import: BullMQ is required lazily (see `bullmq()`).
function gatedWorkerClass() {
  return class GatedWorker<T> extends bullmq().Worker<T> {
    readonly #gate: StrainGate;
    readonly #stopListening: () => void;
    /** Jobs taken and not finished yet: being run, or fetched and queued in BullMQ's loop. */
    #held = 0;
    /** The tokens of the jobs being run: a fetch under one is its job's "fetch next". */
    readonly #running = new Set<string>();
    /** True while BullMQ's fetch runs synchronously from {@link #nextJob}, past its check. */
    #checked = false;
    readonly #waiting = new Set<() => void>();

    constructor(name: string, processor: Processor<T>, options: WorkerOptions, gate: StrainGate) {
      super(name, processor, options);
      this.#gate = gate;
      this.#stopListening = gate.onRecovery(() => this.#wake());
      // `_getNextJob` is private in BullMQ's types, so it is replaced on the instance, not overridden.
      const internals = this as unknown as { _getNextJob: NextJob };
      const fetch = internals._getNextJob;
      internals._getNextJob = (client, bclient, token, fetchOptions) =>
        this.#nextJob(fetch, client, bclient, token, fetchOptions);
    }

    /** Whether a fetch may go on to BullMQ, which takes no job once closing or paused. */
    #mayFetch(): boolean {
      return !this.#gate.strained || this.#held === 0 || this.#stopping();
    }

    #stopping(): boolean {
      return Boolean(this.closing || this.paused);
    }

    /** Resolves at the next recovery, job's end, close or pause. */
    #change(): Promise<void> {
      return new Promise((resolve) => this.#waiting.add(resolve));
    }

    #wake(): void {
      const waiting = [...this.#waiting];
      this.#waiting.clear();
      for (const resolve of waiting) resolve();
    }

    async #nextJob(
      fetch: NextJob,
      client: RedisClient,
      bclient: RedisClient,
      token: string,
      options?: GetNextJobOptions,
    ): Promise<Job | undefined> {
      if (!this.#mayFetch()) {
        if (options?.block === false) return undefined;
        await this.#change();
        // Still strained (a job ended): no job, so that BullMQ's loop turns and runs what it holds.
        if (!this.#mayFetch()) return undefined;
      }
      this.#checked = true;
      try {
        // Not awaited here: the flag covers only the part that runs now, up to BullMQ's
        // first await, which is its `moveToActive` when no blocking wait comes first.
        return fetch.call(this, client, bclient, token, options);
      } finally {
        this.#checked = false;
      }
    }

    protected override async moveToActive(
      client: RedisClient,
      token: string,
      name?: string,
    ): Promise<Job<T>> {
      if (!this.#checked && !this.#running.has(token) && !this.#mayFetch()) {
        // A blocking wait from before the strain saw a job: it stays in Redis until recovery.
        while (!this.#mayFetch()) await this.#change();
        // BullMQ's own type says a job; it returns none too, when the queue is empty.
        if (this.#stopping()) return undefined as unknown as Job<T>;
      }
      return super.moveToActive(client, token, name);
    }

    protected override async nextJobFromJobData(
      jobData?: JobJsonRaw,
      jobId?: string,
      token?: string,
    ): Promise<Job<T>> {
      if (!jobData) return super.nextJobFromJobData(jobData, jobId, token);
      // Counted before the await: a job's end in between must see this one held.
      this.#held += 1;
      const job = await super.nextJobFromJobData(jobData, jobId, token);
      // None when BullMQ could not schedule a repeatable job's next run: nothing to run then.
      if (!job) this.#held -= 1;
      return job;
    }

    override async processJob(
      job: Job<T>,
      token: string,
      fetchNextCallback: () => boolean = () => true,
      // biome-ignore lint/suspicious/noConfusingVoidType: BullMQ's own signature, overridden.
    ): Promise<void | Job<T>> {
      this.#running.add(token);
      try {
        return await super.processJob(
          job,
          token,
          () => fetchNextCallback() && (!this.#gate.strained || this.#held <= 1),
        );
      } finally {
        this.#running.delete(token);
        this.#held -= 1;
        // After this tick's promise callbacks, so BullMQ's loop has this job's end (maybe
        // the next job it fetched) in its queue when a held fetch returns and it turns.
        setImmediate(() => this.#wake());
      }
    }

    override pause(doNotWaitActive?: boolean): Promise<void> {
      const pausing = super.pause(doNotWaitActive);
      this.#wake();
      return pausing;
    }

    override close(force?: boolean): Promise<void> {
      const closing = super.close(force);
      this.#stopListening();
      this.#wake();
      return closing;
    }
  };
}
