import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";

/**
 * Conversations one worker process runs at once, by default. A turn spends
 * nearly all its time waiting on the model and the platform, so a slot is
 * cheap: what limits a worker is its event loop and its memory, which
 * {@link BackPressure} watches, not a small count. A thousand people writing
 * at once are one wave of turns, not many (at 8, the old default, the last
 * of 1,000 waited about ten minutes for a 5 s answer).
 */
export const DEFAULT_CONCURRENCY = 1_024;

/** When a worker stops taking new turns; 0 turns a limit off. */
export interface BackPressureLimits {
  /** Event-loop delay p99 over the last look (ms). */
  readonly maxEventLoopDelayMs: number;
  /** V8 heap in use (MB); unset: 80% of the heap's limit (`--max-old-space-size`). */
  readonly maxHeapMb?: number;
}

export const DEFAULT_BACK_PRESSURE: BackPressureLimits = Object.freeze({
  maxEventLoopDelayMs: 200,
});

/** One look at the process. */
export interface LoadSample {
  readonly eventLoopDelayP99Ms: number;
  readonly heapUsedMb: number;
  readonly heapLimitMb: number;
}

/**
 * Why the worker should take no new turns now, or undefined when it may.
 *
 * @example
 * strainOf({ eventLoopDelayP99Ms: 350, heapUsedMb: 200, heapLimitMb: 4096 }, { maxEventLoopDelayMs: 200 });
 * // "event-loop delay p99 350 ms is over 200 ms"
 */
export function strainOf(sample: LoadSample, limits: BackPressureLimits): string | undefined {
  const delay = limits.maxEventLoopDelayMs;
  if (delay > 0 && sample.eventLoopDelayP99Ms > delay) {
    return `event-loop delay p99 ${Math.round(sample.eventLoopDelayP99Ms)} ms is over ${delay} ms`;
  }
  const heap = limits.maxHeapMb ?? Math.floor(sample.heapLimitMb * 0.8);
  if (heap > 0 && sample.heapUsedMb > heap) {
    return `heap in use ${Math.round(sample.heapUsedMb)} MB is over ${heap} MB`;
  }
  return undefined;
}

/**
 * Watches the worker's event loop and heap, and says when they are strained
 * and when they recover, once a second. The turn worker takes no new jobs
 * while strained (the turns it runs go on), so a burst of conversations
 * queues in Redis, where another worker may take it, instead of slowing
 * every stream in this process.
 */
export class BackPressure {
  readonly #histogram: IntervalHistogram;
  readonly #timer: NodeJS.Timeout;
  #strain: string | undefined;

  constructor(
    private readonly limits: BackPressureLimits,
    private readonly onChange: (strain: string | undefined) => void,
    everyMs = 1_000,
    /** How the process is looked at; a test hands in its own. */
    private readonly sample: () => LoadSample = () => this.#sample(),
  ) {
    this.#histogram = monitorEventLoopDelay({ resolution: 10 });
    this.#histogram.enable();
    this.#timer = setInterval(() => this.look(), everyMs);
    this.#timer.unref();
  }

  /** Why the worker takes no new turns now, if it does not. */
  get strain(): string | undefined {
    return this.#strain;
  }

  /** Samples the process and reports a change of state. */
  look(): void {
    const strain = strainOf(this.sample(), this.limits);
    if ((strain === undefined) === (this.#strain === undefined)) {
      this.#strain = strain;
      return;
    }
    this.#strain = strain;
    this.onChange(strain);
  }

  /** The event-loop delay since the last look, and the heap now. */
  #sample(): LoadSample {
    const heap = getHeapStatistics();
    const delay = this.#histogram.count > 0 ? this.#histogram.percentile(99) / 1e6 : 0;
    this.#histogram.reset();
    return {
      eventLoopDelayP99Ms: delay,
      heapUsedMb: heap.used_heap_size / 2 ** 20,
      heapLimitMb: heap.heap_size_limit / 2 ** 20,
    };
  }

  close(): void {
    clearInterval(this.#timer);
    this.#histogram.disable();
  }
}
