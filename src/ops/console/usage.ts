import type { Cluster, Redis } from "ioredis";
import {
  dayPeriod,
  monthPeriod,
  nextUtcMidnight,
  tokensSpent,
  type UsageCounts,
} from "../../core/budget/usage.ts";
import type { SwitchyardConfig } from "../../core/config/index.ts";
import { LIMIT_NAMES, type LimitName, limitsFor, type Rate } from "../../core/config/index.ts";
import type { Store } from "../../store/index.ts";

/** A Slack team, Discord guild or Telegram chat. */
export interface WorkspaceRef {
  readonly platform: string;
  readonly workspace: string;
}

/** A daily token budget and what is left of it. */
export interface BudgetState {
  readonly budget: number;
  readonly left: number;
  /** Midnight UTC, when it starts again (ms since the epoch). */
  readonly resetsAt: number;
}

/** A message rate limit as configured, and, where it is counted for the workspace, its window now. */
export interface LimitState {
  readonly name: LimitName;
  readonly rate: Rate;
  /** Only the workspace's own window is one counter; per person and conversation there is one each. */
  readonly window?: { readonly used: number; readonly left: number; readonly resetsInMs: number };
}

export interface WorkspaceUsage {
  readonly ref: WorkspaceRef;
  readonly today: UsageCounts;
  readonly month: UsageCounts;
  readonly budget?: BudgetState;
  readonly limits: readonly LimitState[];
}

export interface PersonUsage {
  /** Platform-qualified (`slack:U0123`). */
  readonly user: string;
  readonly today: UsageCounts;
  readonly budget?: BudgetState;
}

/** How many people the usage page lists, most tokens first. */
export const PEOPLE_LISTED = 100;

function budgetState(budget: number | undefined, today: UsageCounts, now: number) {
  if (budget === undefined) return undefined;
  const left = Math.max(0, budget - tokensSpent(today));
  return { budget, left, resetsAt: nextUtcMidnight(now) };
}

/**
 * What the console's usage page reads: per workspace the tokens of today
 * and this month, its daily budget and what is left, and its message rate
 * limits with the workspace window as it stands; per person the tokens of
 * today against their budget. Read-only: nothing here takes a slot of a
 * limit or touches a counter.
 */
export class UsageReader {
  constructor(
    private readonly redis: Redis,
    private readonly store: Store,
    private readonly config: () => SwitchyardConfig,
    private readonly now: () => number = Date.now,
  ) {}

  async workspace(ref: WorkspaceRef): Promise<WorkspaceUsage> {
    const now = this.now();
    const config = this.config();
    const owner = { kind: "workspace", ref } as const;
    const [today, month] = await Promise.all([
      this.store.usage.read(owner, dayPeriod(now)),
      this.store.usage.read(owner, monthPeriod(now)),
    ]);
    // No channel: the workspace's own limits (a channel of it may set others).
    const rates = limitsFor(config.limits, { ...ref, channel: "" });
    const limits = await Promise.all(
      LIMIT_NAMES.flatMap((name): Promise<LimitState>[] => {
        const rate = rates[name];
        if (!rate) return [];
        if (name !== "workspace") return [Promise.resolve({ name, rate })];
        return [this.#window(ref, rate).then((window) => ({ name, rate, window }))];
      }),
    );
    const budget = budgetState(config.budgets.workspaceTokensPerDay, today, now);
    return { ref, today, month, limits, ...(budget ? { budget } : {}) };
  }

  /** People who used tokens today, most first, up to {@link PEOPLE_LISTED}. */
  async people(): Promise<PersonUsage[]> {
    const now = this.now();
    const day = dayPeriod(now);
    const users = await this.#usersWithUsage(day);
    const budget = this.config().budgets.userTokensPerDay;
    const people = await Promise.all(
      users.map(async (user) => {
        const today = await this.store.usage.read({ kind: "user", user }, day);
        const state = budgetState(budget, today, now);
        return { user, today, ...(state ? { budget: state } : {}) };
      }),
    );
    return people
      .sort((a, b) => tokensSpent(b.today) - tokensSpent(a.today) || (a.user < b.user ? -1 : 1))
      .slice(0, PEOPLE_LISTED);
  }

  /** The workspace's sliding window, read as the limit's script counts it (by Redis's clock). */
  async #window(ref: WorkspaceRef, rate: Rate) {
    const key = this.store.keys.rateLimit({ kind: "workspace", ...ref }, rate.windowMs);
    const [seconds, micros] = await this.redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const since = now - rate.windowMs;
    const [used, oldest] = await Promise.all([
      this.redis.zcount(key, `(${since}`, "+inf"),
      this.redis.zrangebyscore(key, `(${since}`, "+inf", "WITHSCORES", "LIMIT", 0, 1),
    ]);
    const first = oldest[1] === undefined ? undefined : Number(oldest[1]);
    return {
      used,
      left: Math.max(0, rate.count - used),
      resetsInMs: first === undefined ? 0 : Math.max(0, first + rate.windowMs - now),
    };
  }

  /**
   * The people whose counters for `day` exist. A person's counters are
   * keyed by them alone (their budget counts everywhere they write), so
   * they are found by scanning, on every master of a Cluster.
   */
  async #usersWithUsage(day: string): Promise<string[]> {
    const probe = this.store.keys.usage({ kind: "user", user: "\u0000" }, day);
    const [head, tail] = probe.split(encodeURIComponent("\u0000")) as [string, string];
    const match = `${globEscape(head)}*${globEscape(tail)}`;
    const nodes = this.redis.isCluster
      ? (this.redis as unknown as Cluster).nodes("master")
      : [this.redis];
    const users = new Set<string>();
    for (const node of nodes) {
      let cursor = "0";
      do {
        const [next, keys] = await node.scan(cursor, "MATCH", match, "COUNT", 500);
        cursor = next;
        for (const key of keys) {
          const encoded = key.slice(head.length, key.length - tail.length);
          try {
            users.add(decodeURIComponent(encoded));
          } catch {
            // Not one of ours: a key that only looks like it.
          }
        }
      } while (cursor !== "0" && users.size < 10 * PEOPLE_LISTED);
    }
    return [...users];
  }
}

/** A literal for Redis's MATCH: its glob characters escaped. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
