import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import {
  FAKE_MODEL_ID,
  type FakeOpenAI,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { type KillMoment, runKillLoop, WorkerFleet, waitFor } from "./chaos-fleet.ts";
import { CHAOS, type ChaosRandom, scenarioRandom } from "./chaos-knobs.ts";
import { countLedger, type LedgerCounts, summaryLine } from "./chaos-ledger.ts";
import { chaosResponder, tagOf } from "./chaos-model.ts";
import { deleteKeysUnder, uniquePrefix } from "./redis.ts";
import { type SwitchyardProcess, startSwitchyardProcess } from "./switchyard-process.ts";

/**
 * One platform as the chaos scenarios drive it: its fake, how a person
 * sends a message there, what the bot's messages in a conversation look
 * like in the end, and the worst moments to kill a worker at.
 */
export interface ChaosPlatform {
  readonly name: string;
  /** The environment that points ingress and workers at the fake. */
  env(): Record<string, string>;
  /** A person sends message `tag` in conversation `conversation` (0-based); `first` starts it. */
  send(conversation: number, tag: string, first: boolean): Promise<void>;
  /** Where the conversation's turns run (known once its first message was sent). */
  address(conversation: number): ConversationAddress | undefined;
  /** The bot's messages in the conversation, as the platform shows them now, in its order. */
  shown(conversation: number): string[];
  /** Finders of the worst moments to kill the worker of a turn, by kind. */
  moments(): Record<string, () => KillMoment | undefined>;
  /** Whether a platform call is still on its way (the round trip). */
  busy(): boolean;
  /** Posts the platform carried out whose caller was killed before it heard back. */
  orphanedPosts(): number;
  /** Kills that landed inside a post's window: after the platform took it, before its id could be recorded. */
  killsInSendWindow?(kills: readonly { at: number; held: readonly string[] }[]): number;
  readonly delayMs: number;
}

export interface ScenarioOptions {
  readonly name: string;
  readonly redisUrl: string;
  readonly messages: number;
  /** Messages per conversation (the last conversation takes the rest). */
  readonly perConversation?: number;
  readonly workers?: number;
  readonly maxKills: number;
  /** ms between streamed words; the answer streams for about 22 × this. */
  readonly chunkDelayMs?: number;
  /** ms between two messages of one conversation, drawn from [min, max]. */
  readonly gapMs?: readonly [number, number];
  /** How long everything may take to settle after the last kill. */
  readonly settleMs?: number;
  /** The kill moments, when not the platform's own. */
  readonly moments?: Record<string, () => KillMoment | undefined>;
  /** The most kills one conversation's turns may take (default: the worker's resumes). */
  readonly maxHitsPerConversation?: number;
  /** Keep killing after every message has its answer (default: stop then). */
  readonly killAfterAnswers?: boolean;
  /** The pause after a kill, in ms, drawn from [min, max]. */
  readonly killGapMs?: readonly [number, number];
  /** How long to look for one kind of moment before trying the next. */
  readonly lookMs?: number;
}

export interface ScenarioResult {
  readonly counts: LedgerCounts;
  readonly line: string;
  readonly kills: readonly { kind: string }[];
  readonly orphans: number;
  /** See {@link ChaosPlatform.killsInSendWindow}; 0 where the platform does not say. */
  readonly inWindow: number;
}

/** The intervals a worker reads, short so a killed worker's turn is taken over in about two seconds. */
export const FAST_TAKEOVER = {
  SWITCHYARD_LEASE_MS: "1500",
  SWITCHYARD_LOCK_MS: "1500",
  SWITCHYARD_STALLED_INTERVAL_MS: "500",
};

/**
 * A running chaos scenario: the fake model, one ingress process and a fleet
 * of worker processes on one Redis prefix. `run` sends the messages, lets a
 * kill loop loose on the workers, waits for things to settle and counts.
 */
export class ChaosScenario {
  readonly prefix = uniquePrefix("chaos");
  readonly random: ChaosRandom;
  readonly redis: Redis;
  model!: FakeOpenAI;
  fleet!: WorkerFleet;
  ingress: SwitchyardProcess[] = [];
  /** What was sent, by conversation number. */
  readonly #sent = new Map<number, string[]>();

  constructor(
    readonly platform: ChaosPlatform,
    readonly options: ScenarioOptions,
  ) {
    this.random = scenarioRandom(options.name);
    this.redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
    // A Redis fault scenario restarts the server under this connection; it reconnects.
    this.redis.on("error", () => {});
  }

  env(): Record<string, string> {
    return {
      REDIS_URL: this.options.redisUrl,
      SWITCHYARD_PREFIX: this.prefix,
      OPENAI_BASE_URL: this.model.url,
      OPENAI_API_KEY: "chaos",
      SWITCHYARD_MODEL: FAKE_MODEL_ID,
      ...FAST_TAKEOVER,
      ...this.platform.env(),
    };
  }

  async start(): Promise<void> {
    this.model = await startFakeOpenAI({
      responder: chaosResponder(this.options.chunkDelayMs ?? 70),
    });
    const env = this.env();
    this.fleet = new WorkerFleet(env, this.options.workers ?? 3, this.redis);
    const [ingress] = await Promise.all([
      startSwitchyardProcess("ingress", env),
      this.fleet.start(),
    ]);
    this.ingress.push(ingress);
  }

  /**
   * How many conversations, and each one's tags in sending order: `messages`
   * of them, numbered from `first` (a later phase of a run takes new ones).
   */
  plan(messages = this.options.messages, first = 0): Map<number, string[]> {
    const per = this.options.perConversation ?? 4;
    const count = Math.max(1, Math.floor(messages / per));
    return new Map(
      Array.from({ length: count }, (_, i) => {
        const n = i === count - 1 ? messages - per * (count - 1) : per;
        const c = first + i;
        return [c, Array.from({ length: n }, (_, k) => tagOf(c, k + 1))] as const;
      }),
    );
  }

  /** Sends every conversation's messages, the conversations side by side, with random gaps. */
  async sendAll(
    plan: ReadonlyMap<number, readonly string[]>,
    [min, max] = this.options.gapMs ?? [150, 1_500],
  ): Promise<void> {
    await Promise.all(
      [...plan].map(async ([c, tags]) => {
        const sent: string[] = [];
        this.#sent.set(c, sent);
        for (const [i, tag] of tags.entries()) {
          await sleep(this.random.between(i === 0 ? 0 : min, i === 0 ? 400 : max));
          await this.platform.send(c, tag, i === 0);
          sent.push(tag);
        }
      }),
    );
  }

  /** The ledger of the conversations given (default: all of them). */
  counts(conversations: Iterable<number> = this.#sent.keys()): LedgerCounts {
    return countLedger(
      [...conversations].map((c) => ({
        id: `c${c}`,
        sent: this.#sent.get(c) ?? [],
        shown: this.platform.shown(c),
      })),
    );
  }

  /** Every conversation at rest in Redis: nothing waiting, no turn in progress, no lease. */
  async idle(): Promise<boolean> {
    const inbox = new Inbox(this.redis, new KeyScheme(this.prefix));
    for (const c of this.#sent.keys()) {
      const address = this.platform.address(c);
      if (address && !(await inbox.idle(address))) return false;
    }
    return true;
  }

  /** Waits until every message has its answer and nothing moves, then a quiet spell for late doubles. */
  async settle(conversations?: Iterable<number>): Promise<void> {
    const which = conversations ? [...conversations] : undefined;
    await waitFor(
      async () => this.counts(which).lost === 0 && !this.platform.busy() && (await this.idle()),
      this.options.settleMs ?? 20_000,
    );
    await sleep(2_500);
  }

  /** The whole scenario: send under the kill loop, settle, count, print one line. */
  async run(): Promise<ScenarioResult> {
    const plan = this.plan();
    let sending = true;
    const sent = this.sendAll(plan).finally(() => {
      sending = false;
    });
    await runKillLoop({
      fleet: this.fleet,
      random: this.random,
      moments: this.options.moments ?? this.platform.moments(),
      maxKills: this.options.maxKills,
      ...(this.options.maxHitsPerConversation !== undefined
        ? { maxHitsPerConversation: this.options.maxHitsPerConversation }
        : {}),
      ...(this.options.killGapMs ? { gapMs: this.options.killGapMs } : {}),
      ...(this.options.lookMs ? { lookMs: this.options.lookMs } : {}),
      conversations: () =>
        [...plan.keys()].flatMap((c) => {
          const address = this.platform.address(c);
          return address ? [address] : [];
        }),
      done: () => !sending && !this.options.killAfterAnswers && this.counts().lost === 0,
    });
    await sent;
    await this.settle();
    return this.report(this.options.name);
  }

  /** Counts (the conversations given, default all), prints the scenario's one line and returns it. */
  report(
    name: string,
    conversations?: Iterable<number>,
    notes: Record<string, string | number> = {},
  ): ScenarioResult {
    const counts = this.counts(conversations);
    const kinds = this.fleet.kills.map((k) => k.kind);
    const byKind = [...new Set(kinds)].map((k) => `${kinds.filter((x) => x === k).length} ${k}`);
    const orphans = this.platform.orphanedPosts();
    const inWindow = this.platform.killsInSendWindow?.(this.fleet.kills) ?? 0;
    const line = summaryLine(name, counts, {
      "platform delay": `${this.platform.delayMs} ms`,
      kills: `${kinds.length}${byKind.length > 0 ? ` [${byKind.join(", ")}]` : ""}`,
      "posts whose worker died in flight": orphans,
      ...(this.platform.killsInSendWindow ? { "kills inside a send's window": inWindow } : {}),
      ...notes,
      seed: CHAOS.seed,
    });
    console.log(line);
    return { counts, line, kills: this.fleet.kills, orphans, inWindow };
  }

  async close(): Promise<void> {
    await this.fleet?.stop().catch(() => {});
    await Promise.all(this.ingress.map((p) => p.stop("SIGTERM")));
    await this.model?.close();
    await deleteKeysUnder(this.redis, this.prefix).catch(() => {});
    this.redis.disconnect();
  }
}
