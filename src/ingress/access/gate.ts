import type { AgentDefinition } from "../../core/agents/index.ts";
import {
  type AccessPolicy,
  accessPolicyFor,
  entriesMatch,
  type LIMIT_NAMES,
  limitsFor,
  type SwitchyardConfig,
} from "../../core/config/index.ts";
import { accountPlatform, type InboundMessage } from "../../core/conversation.ts";
import type { RateLimitRef, Store } from "../../store/index.ts";
import { conversationAgent } from "../../turn/conversation-agent.ts";
import { newPairingCode, PAIRING_REQUESTS_PER_HOUR, PAIRING_TTL_MS } from "./pairing-code.ts";
import {
  dmClosed,
  dmNotAllowed,
  groupClosed,
  groupNotAllowed,
  limitReached,
  NOTICE_INTERVAL_MS,
  pairingCode,
  pairingTooOften,
  type Refusal,
  type RefusalReason,
} from "./refusals.ts";
import { reserveBudget } from "./token-budget.ts";

/**
 * One check a message passes before it is queued: undefined lets it on,
 * a refusal stops it. The gate runs its rate limits and the token budgets
 * first, then these, in order.
 */
export type GateCheck = (message: InboundMessage) => Promise<Refusal | undefined>;

/** What the gate decided; a refused message is never queued. */
export type GateVerdict =
  | { readonly kind: "pass" }
  | {
      readonly kind: "refused";
      readonly reason: RefusalReason;
      /** What to answer; absent when this sender heard it already within the interval. */
      readonly reply?: string;
      /** Leave the group (Telegram), after the reply. */
      readonly leave: boolean;
    };

export interface IngressGateOptions {
  readonly store: Store;
  readonly config: () => SwitchyardConfig;
  /** Counts every refused message (`switchyard_refused_total{reason}`). */
  readonly refused?: (reason: RefusalReason) => void;
  /** Checks after the rate limits and the token budgets, in order. */
  readonly checks?: readonly GateCheck[];
  readonly now?: () => number;
  readonly newCode?: () => string;
  /** How long a token-budget reservation holds unsettled; default RESERVATION_TTL_MS (15 min). */
  readonly reservationMs?: number;
}

export interface AdmitOptions {
  readonly trusted?: boolean;
  readonly canLeave?: boolean;
}

const PASS: GateVerdict = Object.freeze({ kind: "pass" });

/**
 * The one gate every channel's messages pass, in two steps: `admit` before
 * anything is done with a message (commands included: a stranger changes
 * no tools), `meter` before it is queued (commands answered on the spot
 * cost nothing, so they are not counted). Owners and admins of
 * `permissions:` always get in; limits apply to everyone.
 *
 * @example
 * const verdict = await gate.admit(message);
 * if (verdict.kind === "refused") return verdict.reply && say(verdict.reply);
 */
export class IngressGate {
  readonly #now: () => number;
  readonly #newCode: () => string;

  constructor(private readonly options: IngressGateOptions) {
    this.#now = options.now ?? Date.now;
    this.#newCode = options.newCode ?? newPairingCode;
  }

  /**
   * Who may talk here: the DM and group policies, the allow list, pairing.
   * `trusted`: the channel vouches for the sender (the console's owner).
   * `canLeave`: the channel can leave a group it was not let into (Telegram).
   */
  async admit(message: InboundMessage, options: AdmitOptions = {}): Promise<GateVerdict> {
    const config = this.options.config();
    const sender = `${message.platform}:${message.user}`;
    const { owners, admins } = config.permissions;
    if (options.trusted || owners.includes(sender) || admins.includes(sender)) return PASS;
    const access = (await this.#agentOverride(config, message, "access")) ?? config.access;
    const policy = accessPolicyFor(access, message);
    const refusal =
      message.kind === "group"
        ? this.#group(message, policy, options.canLeave === true)
        : await this.#dm(message, policy, sender);
    if (refusal === "pair") {
      // The code is made only when the stranger is due an answer, so repeats cost no codes.
      return this.#refuse(message, { reason: "dm_pairing", text: "" }, () => this.#pair(message));
    }
    return refusal ? this.#refuse(message, refusal) : PASS;
  }

  /**
   * The answering agent's own `access:` or `limits:`, when it has one. Read
   * only when some agent overrides that section: a config without such
   * agents costs no Redis read here.
   */
  async #agentOverride<K extends "access" | "limits">(
    config: SwitchyardConfig,
    message: InboundMessage,
    section: K,
  ): Promise<AgentDefinition[K] | undefined> {
    if (!(config.agents ?? []).some((agent) => agent[section] !== undefined)) return undefined;
    const settings = await this.options.store.settings.read(message);
    return conversationAgent(config, message, settings).agent[section];
  }

  /**
   * What a queued message would cost: the rate limits, then the daily token
   * budgets (`budgets.tokens`), then the added checks. Each refusal is
   * counted by its reason and answered at most once per interval. A message
   * let through holds its rate-limit slots and a reservation of its turn's
   * estimated tokens, which the turn settles to its real usage; a refusal
   * gives back what earlier steps took.
   */
  async meter(message: InboundMessage): Promise<GateVerdict> {
    const config = this.options.config();
    const rules = (await this.#agentOverride(config, message, "limits")) ?? config.limits;
    const limits = limitsFor(rules, message);
    const taken: string[] = [];
    const refund = () =>
      Promise.all(taken.map((key) => this.options.store.limits.refund(key, message.eventId)));
    for (const name of ["conversation", "user", "workspace"] as const) {
      const rate = limits[name];
      if (!rate) continue;
      const key = this.options.store.keys.rateLimit(limitRef(name, message), rate.windowMs);
      const check = await this.options.store.limits.take(
        key,
        rate.count,
        rate.windowMs,
        message.eventId,
      );
      if (!check.admitted) {
        await refund();
        return this.#refuse(message, {
          reason: `limit_${name}`,
          text: limitReached(name, rate, check.resetMs, this.#now()),
          quietMs: Math.min(NOTICE_INTERVAL_MS, check.resetMs),
        });
      }
      taken.push(key);
    }
    const budget = await reserveBudget(
      this.options,
      message,
      this.#now(),
      this.options.reservationMs,
    );
    if (!budget.admitted) {
      await refund();
      return this.#refuse(message, budget.refusal);
    }
    for (const check of this.options.checks ?? []) {
      const refusal = await check(message);
      if (refusal) {
        await Promise.all([refund(), budget.release()]);
        return this.#refuse(message, refusal);
      }
    }
    return PASS;
  }

  #group(message: InboundMessage, policy: AccessPolicy, canLeave: boolean): Refusal | undefined {
    if (policy.groups === "open") return undefined;
    // A group is let in as a place (its workspace or channel on the list); people entries are for DMs.
    const places = policy.allow.filter((entry) => entry.kind !== "user");
    if (policy.groups === "allowlist" && entriesMatch(places, message)) return undefined;
    const leave = canLeave && policy.onRefusedGroup === "leave";
    const silent = policy.onRefusedGroup === "silent";
    return policy.groups === "closed"
      ? { reason: "group_closed", text: groupClosed(leave), leave, silent }
      : {
          reason: "group_allowlist",
          text: groupNotAllowed(`${message.platform}:chat:${message.channel}`, leave),
          leave,
          silent,
        };
  }

  async #dm(
    message: InboundMessage,
    policy: AccessPolicy,
    sender: string,
  ): Promise<Refusal | "pair" | undefined> {
    if (policy.dm === "open") return undefined;
    if (policy.dm === "closed") return { reason: "dm_closed", text: dmClosed() };
    if (entriesMatch(policy.allow, message)) return undefined;
    if (await this.options.store.access.isApproved(sender)) return undefined;
    if (policy.dm === "allowlist") return { reason: "dm_allowlist", text: dmNotAllowed(sender) };
    return "pair";
  }

  async #refuse(
    message: InboundMessage,
    refusal: Refusal,
    compose?: () => Promise<string>,
  ): Promise<GateVerdict> {
    this.options.refused?.(refusal.reason);
    const { store } = this.options;
    const leave = refusal.leave === true;
    if (refusal.silent) return { kind: "refused", reason: refusal.reason, leave };
    const notice = store.keys.refusalNotice(message.platform, message.user, refusal.reason);
    const due = await store.access.noticeDue(notice, refusal.quietMs ?? NOTICE_INTERVAL_MS);
    if (!due) return { kind: "refused", reason: refusal.reason, leave };
    const reply = compose ? await compose() : refusal.text;
    return { kind: "refused", reason: refusal.reason, reply, leave };
  }

  /** A new one-time code for a stranger in a DM, unless they were given too many lately. */
  async #pair(message: InboundMessage): Promise<string> {
    const { store } = this.options;
    const user = `${message.platform}:${message.user}`;
    const keys = store.keys.access();
    const now = this.#now();
    const asked = await store.limits.take(
      keys.requests(user),
      PAIRING_REQUESTS_PER_HOUR,
      3_600_000,
      message.eventId,
    );
    if (!asked.admitted) return pairingTooOften(asked.resetMs, now);
    const code = this.#newCode();
    await store.access.issue(
      { user, ...(message.userName ? { name: message.userName } : {}) },
      code,
      PAIRING_TTL_MS,
      now,
    );
    return pairingCode(user, code, PAIRING_TTL_MS);
  }
}

function limitRef(name: (typeof LIMIT_NAMES)[number], message: InboundMessage): RateLimitRef {
  // Each bot account counts on its own (`telegram@sales`); the only account keeps the keys it always had.
  const platform = message.account ? accountPlatform(message) : message.platform;
  if (name === "user") return { kind: "user", platform, user: message.user };
  if (name === "conversation") return { kind: "conversation", address: message };
  return { kind: "workspace", platform, workspace: message.workspace };
}
