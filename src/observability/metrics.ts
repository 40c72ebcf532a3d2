import { createRequire } from "node:module";
import type * as PromClient from "prom-client";
import type { Counter, Registry } from "prom-client";
import type { ToolOutcome, TurnResult } from "../core/agent/loop.ts";
import type { ProcessErrorKind } from "./process-guard.ts";

/** How a turn ended: the loop's stop reason, or "error" when the turn threw. */
export type TurnOutcome = TurnResult["stop"] | "error";

export interface TurnObservation {
  /** Wall time of the whole turn, from lease to delivery. */
  readonly seconds: number;
  readonly outcome: TurnOutcome;
  readonly steps: number;
  /** Time spent waiting on the model. */
  readonly modelSeconds: number;
  /** Time spent running tools. */
  readonly toolSeconds: number;
}

export interface TokenCounts {
  readonly prompt: number;
  /** Prompt tokens served from the provider's cache. */
  readonly cached: number;
  readonly completion: number;
}

/**
 * Where the work gauges come from: the conversation queue (shared by every
 * process of a deployment) and this process's turn worker.
 */
export interface WorkSource {
  /** Jobs queued and not yet taken, over every shard (one Redis round trip per shard). */
  waiting(): Promise<number>;
  /** Turns this process is running now; 0 in a process without a worker. */
  inProgress(): number;
}

/** How often `watchWork` asks the queue; Prometheus scrapes every 15-60 s. */
const WORK_POLL_MS = 5_000;

/** Seconds, from a hot queue (milliseconds) to a backlog (minutes). */
const WAIT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const TURN_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600];
const STEP_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50];
/** What Switchyard itself adds to a turn: Redis, contract freezing, delivery. Should be small. */
const OVERHEAD_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * A guard, not the plan: callers label tool calls with registered ids only.
 * Should a model-invented name slip through, the series count stays bounded.
 */
const MAX_TOOL_LABELS = 256;
const OTHER_TOOL = "_other";

/** Counters reject negative increments; a bad usage report must not fail a turn. */
function countable(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Switchyard's Prometheus metrics, in a registry of their own so that two
 * instances (tests, or an app embedding Switchyard next to its own metrics)
 * never collide in prom-client's global registry.
 *
 * Labels are bounded: `outcome` takes a handful of values and `tool` takes
 * registered tool ids only, never user input.
 *
 * @example
 * const metrics = new Metrics();
 * metrics.observeTurn({ seconds: 4.2, outcome: "answer", steps: 3, modelSeconds: 3.9, toolSeconds: 0.2 });
 * res.setHeader("content-type", metrics.contentType).end(await metrics.exposition());
 */
export class Metrics {
  readonly registry: Registry = new (promClient().Registry)();
  readonly #toolLabels = new Set<string>();

  readonly #queueWait = this.#histogram(
    "switchyard_queue_wait_seconds",
    "Time a message waited between arriving and its turn starting.",
    WAIT_BUCKETS,
  );
  readonly #turnDuration = this.#histogram(
    "switchyard_turn_duration_seconds",
    "Wall time of one turn, by how it ended.",
    TURN_BUCKETS,
    ["outcome"],
  );
  readonly #turnSteps = this.#histogram(
    "switchyard_turn_steps",
    "Model requests made in one turn.",
    STEP_BUCKETS,
  );
  readonly #overhead = this.#histogram(
    "switchyard_framework_overhead_seconds",
    "Turn time not spent in the model or in tools.",
    OVERHEAD_BUCKETS,
  );
  readonly #turns = this.#counter("switchyard_turns_total", "Turns run, by how they ended.", [
    "outcome",
  ]);
  readonly #toolCalls = this.#counter(
    "switchyard_tool_calls_total",
    "Tool calls, by tool id and outcome.",
    ["tool", "outcome"],
  );
  /** Tokens by kind, as {@link TokenCounts} names them. */
  readonly #tokens: Readonly<Record<keyof TokenCounts, Counter>> = {
    prompt: this.#counter("switchyard_prompt_tokens_total", "Prompt tokens sent to the model."),
    cached: this.#counter(
      "switchyard_cached_tokens_total",
      "Prompt tokens the provider served from its prompt cache.",
    ),
    completion: this.#counter(
      "switchyard_completion_tokens_total",
      "Completion tokens the model produced.",
    ),
  };
  readonly #feedback = this.#counter(
    "switchyard_feedback_total",
    "Votes on answers that changed a person's vote (a first vote, or a change of mind), by the vote it changed to; the same vote again counts nothing.",
    ["vote"],
  );
  readonly #contractChanges = this.#counter(
    "switchyard_contract_hash_changes_total",
    "Turns whose tool contract hash differed from the conversation's previous turn (a prompt-cache miss).",
  );

  readonly #processErrors = this.#counter(
    "switchyard_process_errors_total",
    "Errors nobody caught that reached the process (uncaught exceptions, unhandled rejections); the process guard logged and survived each.",
    ["kind"],
  );
  readonly #channelErrors = this.#counter(
    "switchyard_channel_errors_total",
    "Failures a channel survived: a platform event it could not handle, an interaction or message that failed.",
    ["platform", "stage"],
  );

  readonly #queueWaiting = this.#gauge(
    "switchyard_queue_waiting",
    "Conversation jobs queued and not yet taken by a worker, over every shard (the deployment's backlog; every process reports the same).",
  );
  #work: WorkSource | undefined;
  readonly #turnsInProgress = new (promClient().Gauge)({
    name: "switchyard_turns_in_progress",
    help: "Turns this process is running now.",
    registers: [this.registry],
    collect: () => {
      if (this.#work) this.#turnsInProgress.set(this.#work.inProgress());
    },
  });
  readonly #modelFallbacks = this.#counter(
    "switchyard_model_fallback_total",
    "Model steps moved to the next model of a models: entry's fallback chain, by from, to and reason.",
    ["from", "to", "reason"],
  );
  readonly #refused = this.#counter(
    "switchyard_refused_total",
    "Messages not queued because the access policy or a limit refused them, by reason.",
    ["reason"],
  );

  constructor() {
    promClient().collectDefaultMetrics({ register: this.registry });
  }

  // The metrics' own constructors, in this registry; `labels` are the series' bounded label names.
  #counter<L extends string = string>(name: string, help: string, labels: readonly L[] = []) {
    return new (promClient().Counter)<L>({
      name,
      help,
      labelNames: labels,
      registers: [this.registry],
    });
  }

  #gauge<L extends string = string>(name: string, help: string, labels: readonly L[] = []) {
    return new (promClient().Gauge)<L>({
      name,
      help,
      labelNames: labels,
      registers: [this.registry],
    });
  }

  #histogram<L extends string = string>(
    name: string,
    help: string,
    buckets: number[],
    labels: readonly L[] = [],
  ) {
    return new (promClient().Histogram)<L>({
      name,
      help,
      buckets,
      labelNames: labels,
      registers: [this.registry],
    });
  }

  /**
   * Feeds `switchyard_queue_waiting` (asked every few seconds, not on each
   * scrape, so a slow Redis never stalls a scrape) and
   * `switchyard_turns_in_progress` (read at each scrape). A failed look
   * keeps the last value and is tried again; it never reaches the process.
   * Returns the function that stops it.
   *
   * @example
   * const stop = metrics.watchWork({ waiting: () => app.queue.waiting(), inProgress: () => app.worker?.inProgress ?? 0 });
   * // ... on shutdown:
   * stop();
   */
  watchWork(source: WorkSource, intervalMs = WORK_POLL_MS): () => void {
    this.#work = source;
    let looking = false;
    const look = () => {
      if (looking) return;
      looking = true;
      Promise.resolve()
        .then(() => source.waiting())
        .then(
          (waiting) => this.#queueWaiting.set(waiting),
          () => {},
        )
        .finally(() => {
          looking = false;
        });
    };
    look();
    const timer = setInterval(look, intervalMs);
    timer.unref();
    return () => {
      clearInterval(timer);
      this.#work = undefined;
    };
  }

  /** The `Content-Type` of `exposition()`. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  observeQueueWait(seconds: number): void {
    this.#queueWait.observe(countable(seconds));
  }

  /** Records a finished turn; framework overhead is what the model and tools do not explain. */
  observeTurn(turn: TurnObservation): void {
    this.#turns.inc({ outcome: turn.outcome });
    this.#turnDuration.observe({ outcome: turn.outcome }, countable(turn.seconds));
    this.#turnSteps.observe(countable(turn.steps));
    const overhead = turn.seconds - turn.modelSeconds - turn.toolSeconds;
    this.#overhead.observe(countable(overhead));
  }

  /** `tool` must be a registered tool id (bounded), never a name the model made up. */
  countToolCall(tool: string, outcome: ToolOutcome): void {
    if (!this.#toolLabels.has(tool) && this.#toolLabels.size < MAX_TOOL_LABELS) {
      this.#toolLabels.add(tool);
    }
    this.#toolCalls.inc({ tool: this.#toolLabels.has(tool) ? tool : OTHER_TOOL, outcome });
  }

  countTokens(tokens: TokenCounts): void {
    for (const kind of ["prompt", "cached", "completion"] as const) {
      this.#tokens[kind].inc(countable(tokens[kind]));
    }
  }

  /**
   * Call when a turn's contract hash differs from the same conversation's
   * previous turn: the tools array changed, so the provider's prompt cache
   * started over. A steady climb means something wobbles between turns.
   */
  countContractChange(): void {
    this.#contractChanges.inc();
  }

  /**
   * A person's vote on an answer changed to `vote`: a first vote, or a change
   * of mind (👍 then 👎 counts one `up` and one `down`; nothing is taken back,
   * counters only rise). A click that keeps the vote as it was, or a click
   * delivered twice, counts nothing. So `up` counts the moves to 👍, and the
   * votes standing now are read from the store, not from here.
   */
  countFeedback(vote: "up" | "down"): void {
    this.#feedback.inc({ vote });
  }

  /** An error the process guard survived (see process-guard.ts). */
  countProcessError(kind: ProcessErrorKind): void {
    this.#processErrors.inc({ kind });
  }

  /**
   * A message the gate refused. `reason` is the gate's own constant
   * (`dm_pairing`, `limit_user`, ...), never platform data.
   */
  countRefused(reason: string): void {
    this.#refused.inc({ reason });
  }

  /**
   * A failure a channel survived. `platform` and `stage` are the channel's
   * own constants (e.g. "discord", "gateway"), never platform data.
   */
  countChannelError(platform: string, stage: string): void {
    this.#channelErrors.inc({ platform, stage });
  }

  /**
   * A step moved to the next model of a fallback chain. `from` and `to` are
   * names from the config's `models:` list, `reason` one of four kinds.
   */
  countModelFallback(from: string, to: string, reason: string): void {
    this.#modelFallbacks.inc({ from, to, reason });
  }
}

let loaded: typeof PromClient | undefined;

/**
 * prom-client, required by the first {@link Metrics} rather than with the
 * package (issue 29). CommonJS only: the module every import of it gets.
 */
function promClient(): typeof PromClient {
  loaded ??= createRequire(import.meta.url)("prom-client") as typeof PromClient;
  return loaded;
}
