import type { Redis } from "ioredis";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import type { ChaosRandom } from "./chaos-knobs.ts";
import { type SwitchyardProcess, startSwitchyardProcess } from "./switchyard-process.ts";

/**
 * Worker processes under a kill -9 loop. The fleet keeps `size` workers
 * running: each one killed is replaced by a fresh process, as a supervisor
 * (Kubernetes, systemd) would. Kills target the process holding a given
 * conversation's lease, the one in the middle of that conversation's turn;
 * the lease token names its pid.
 */
export class WorkerFleet {
  readonly workers: SwitchyardProcess[] = [];
  /** Every worker that ever ran, killed ones included, for their logs. */
  readonly everyone: SwitchyardProcess[] = [];
  /** Each kill: when, why, the conversation it was aimed at and every one whose turn it interrupted. */
  readonly kills: { at: number; kind: string; conversation: string; held: string[] }[] = [];
  readonly #starting = new Set<Promise<unknown>>();
  /** How many kills interrupted each conversation's turn. */
  readonly #hits = new Map<string, number>();
  readonly #keys: KeyScheme;

  constructor(
    private readonly env: Record<string, string>,
    private readonly size: number,
    private readonly redis: Redis,
  ) {
    this.#keys = new KeyScheme(env.SWITCHYARD_PREFIX ?? "sy");
  }

  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, () => this.#add()));
  }

  /** The lease key of a conversation, as the worker builds it. */
  leaseKey(address: ConversationAddress): string {
    return `${this.#keys.conversationTag(address)}:lease`;
  }

  /** The live worker holding the conversation's lease, if one of ours does. */
  async holder(address: ConversationAddress): Promise<SwitchyardProcess | undefined> {
    const token = await this.redis.get(this.leaseKey(address));
    const pid = Number(token?.split("|")[1]?.split(".")[0]);
    return this.workers.find((w) => w.pid === pid && w.alive());
  }

  /**
   * SIGKILLs the worker holding the conversation's lease and starts its
   * replacement in the background. False when no live worker of ours holds
   * it, or when the kill would interrupt a turn of one of `among` for the
   * `maxHits + 1`-th time: a turn interrupted more often than the worker
   * resumes it is given up by design (a poison message must not wedge a
   * conversation), which is not what a kill loop is here to test.
   */
  async killHolder(
    address: ConversationAddress,
    kind: string,
    among: readonly ConversationAddress[] = [address],
    maxHits = Number.POSITIVE_INFINITY,
  ): Promise<boolean> {
    const victim = await this.holder(address);
    if (!victim) return false;
    const held: string[] = [];
    for (const other of among) {
      if ((await this.holder(other)) === victim) held.push(other.conversation);
    }
    if (held.some((c) => (this.#hits.get(c) ?? 0) >= maxHits)) return false;
    victim.child.kill("SIGKILL");
    for (const c of held) this.#hits.set(c, (this.#hits.get(c) ?? 0) + 1);
    this.workers.splice(this.workers.indexOf(victim), 1);
    this.kills.push({ at: Date.now(), kind, conversation: address.conversation, held });
    const adding = this.#add().catch(() => {});
    this.#starting.add(adding);
    void adding.finally(() => this.#starting.delete(adding));
    return true;
  }

  /** Waits for the replacements still starting. */
  async settle(): Promise<void> {
    await Promise.all([...this.#starting]);
  }

  async stop(): Promise<void> {
    await this.settle();
    await Promise.all(this.workers.map((w) => w.stop("SIGTERM")));
  }

  async #add(): Promise<void> {
    const worker = await startSwitchyardProcess("worker", this.env);
    this.workers.push(worker);
    this.everyone.push(worker);
  }
}

/**
 * How often the worker resumes an interrupted turn before it gives up on it
 * with an apology (MAX_STALLED_PICKUPS in src/store/pickups.ts). Per run, the kill
 * loop interrupts no conversation more often than this.
 */
export const RESUMES_BEFORE_GIVING_UP = 3;

/** A moment to kill at: the conversation whose turn is there, and what kind of moment it is. */
export interface KillMoment {
  readonly address: ConversationAddress;
  readonly kind: string;
}

export interface KillLoopOptions {
  readonly fleet: WorkerFleet;
  readonly random: ChaosRandom;
  /** Finders of worst moments, by kind; each looks at what the fakes recorded right now. */
  readonly moments: Readonly<Record<string, () => KillMoment | undefined>>;
  /** Every conversation of the scenario, to count how often a kill interrupts each. */
  readonly conversations: () => readonly ConversationAddress[];
  /** The most kills one conversation's turns may take (default: the worker's 3 resumes). */
  readonly maxHitsPerConversation?: number;
  readonly maxKills: number;
  /** Stops the loop early (e.g. every message answered). */
  readonly done: () => boolean;
  /** The pause after a kill, in ms, drawn from [min, max]. */
  readonly gapMs?: readonly [number, number];
  /** How long to look for one kind of moment before trying the next. */
  readonly lookMs?: number;
  /** How long the whole loop may run (default 45 s): a run with no such moments still ends. */
  readonly totalMs?: number;
}

/**
 * Kills lease holders at the worst moments until `maxKills` or `done()`:
 * takes the kinds in turn, polls the fakes every few ms for such a moment,
 * and kills the worker whose turn is in it.
 */
export async function runKillLoop(options: KillLoopOptions): Promise<void> {
  const kinds = Object.keys(options.moments);
  const [minGap, maxGap] = options.gapMs ?? [700, 1_800];
  let turn = 0;
  const end = Date.now() + (options.totalMs ?? 45_000);
  while (options.fleet.kills.length < options.maxKills && !options.done() && Date.now() < end) {
    const kind = kinds[turn++ % kinds.length] as string;
    const find = options.moments[kind] as () => KillMoment | undefined;
    const deadline = Date.now() + (options.lookMs ?? 4_000);
    let killed = false;
    while (!killed && Date.now() < deadline && !options.done()) {
      const moment = find();
      if (moment) {
        killed = await options.fleet.killHolder(
          moment.address,
          moment.kind,
          options.conversations(),
          options.maxHitsPerConversation ?? RESUMES_BEFORE_GIVING_UP,
        );
      }
      if (!killed) await new Promise((resolve) => setTimeout(resolve, 3));
    }
    if (killed) {
      await new Promise((resolve) => setTimeout(resolve, options.random.between(minGap, maxGap)));
    }
  }
}

/** Resolves once `probe` holds, or false after `timeoutMs`. */
export async function waitFor(probe: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return probe();
}
