import { addressOnly, type ConversationAddress } from "../core/conversation.ts";
import type { Vote } from "../ports/feedback.ts";
import { LuaScript } from "./lua.ts";
import { StateStore } from "./state-store.ts";

/** How long a rated answer keeps its record, its index and its votes: 30 days. */
export const FEEDBACK_KEEP_MS = 30 * 86_400_000;

/** How long a 👎 waits for "what was wrong?": the voter's next message within it is kept. */
export const FEEDBACK_WHY_MS = 120_000;

/** Its scripts: src/store/lua/feedback-*.lua, each file saying what it does, its keys and arguments. */
const LUA = LuaScript.set("feedback", { vote: 2, why: 1, rate: 2 });

/** What a rated answer records of its turn, at delivery. */
export interface RatedTurn {
  readonly turnId: string;
  readonly contractHash: string;
  /** The model the turn ran on; "default" for the provider's own. */
  readonly model: string;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly completionTokens: number;
  /** The turn span's context (W3C `traceparent`), so a vote lands in the turn's trace. */
  readonly trace?: Readonly<Record<string, string>> | undefined;
}

/** One person's vote on an answer, as stored. */
export interface StoredVote {
  readonly voter: string;
  readonly vote: Vote;
  readonly at: number;
  readonly name?: string;
  /** Their answer to "what was wrong?", when they gave one. */
  readonly why?: string;
}

/** A rated answer's record with its votes, as the console shows it. */
export interface AnswerRating extends RatedTurn {
  readonly id: string;
  readonly at: number;
  readonly votes: readonly StoredVote[];
}

/** What recording a vote came to (see {@link FeedbackStore.vote}). */
export type VoteOutcome =
  | { readonly kind: "recorded"; readonly previous: Vote | undefined; readonly ask: boolean }
  | { readonly kind: "same" | "expired" };

/** Where a feedback id points: the conversation and the turn. */
export interface RatedAnswerRef {
  readonly address: ConversationAddress;
  readonly turnId: string;
}

/**
 * Votes on answers, in Redis. An answer is rated at delivery: its record
 * (the turn's contract hash, model and tokens) in the conversation's slot,
 * an index from its short feedback id to the conversation and the turn, and
 * the conversation's last rated answer for a typed `/good`. Each person has
 * one vote per answer, which a later vote replaces (one script); all of it
 * expires after {@link FEEDBACK_KEEP_MS}.
 *
 * @example
 * await feedback.rate(address, "k3x9q2m7p1ab", { turnId, contractHash, model, ... });
 * const ref = await feedback.find("k3x9q2m7p1ab");
 * if (ref) await feedback.vote(ref, "slack:U1", "down", { at: Date.now(), askWhy: true });
 */
export class FeedbackStore extends StateStore {
  /** Records the answer of `turn` as rated under `id` (idempotent: a resumed delivery writes the same). */
  async rate(address: ConversationAddress, id: string, turn: RatedTurn, at: number): Promise<void> {
    const record = this.keys.feedback(address, turn.turnId);
    const where = JSON.stringify({ address: plain(address), turnId: turn.turnId });
    const fields = Object.entries({
      id,
      turn: turn.turnId,
      contract: turn.contractHash,
      model: turn.model,
      prompt: turn.promptTokens,
      cached: turn.cachedTokens,
      completion: turn.completionTokens,
      at,
      ...(turn.trace ? { trace: JSON.stringify(turn.trace) } : {}),
    }).flat();
    // Two slots on a cluster (the record's and the index's), sent together: one round trip.
    // No click can find the index before the record is written: the buttons that carry the
    // id are posted after this resolves.
    await Promise.all([
      LUA.rate.run(
        this.redis,
        [record, this.keys.feedbackLast(address)],
        [FEEDBACK_KEEP_MS, id, ...fields],
      ),
      this.redis.set(this.keys.feedbackIndex(id), where, "PX", FEEDBACK_KEEP_MS),
    ]);
  }

  /** The answer feedback id `id` rates; undefined when unknown or expired. */
  async find(id: string): Promise<RatedAnswerRef | undefined> {
    return refOf(await this.redis.get(this.keys.feedbackIndex(id)));
  }

  /** The feedback id of the conversation's last rated answer, for a typed `/good` or `/bad`. */
  async last(address: ConversationAddress): Promise<string | undefined> {
    return (await this.redis.get(this.keys.feedbackLast(address))) ?? undefined;
  }

  /**
   * Sets `voter`'s vote on the answer; see the script for the outcomes. A
   * first 👎 with `askWhy` opens the voter's "what was wrong?" wait.
   */
  async vote(
    ref: RatedAnswerRef,
    voter: string,
    vote: Vote,
    options: { readonly at: number; readonly name?: string; readonly askWhy: boolean },
  ): Promise<VoteOutcome> {
    const [kind, previous, ask] = (await LUA.vote.run(
      this.redis,
      [this.keys.feedback(ref.address, ref.turnId), this.keys.feedbackWhy(ref.address, voter)],
      [
        voter,
        vote,
        options.name ?? "",
        options.at,
        ref.turnId,
        options.askWhy ? "1" : "0",
        FEEDBACK_WHY_MS,
      ],
    )) as [string, string, string];
    if (kind !== "recorded") return { kind: kind === "same" ? "same" : "expired" };
    return { kind, previous: voteOf(previous), ask: ask === "1" };
  }

  /** The turn's context for tracing a vote, stored at delivery; undefined when none was. */
  async trace(ref: RatedAnswerRef): Promise<Readonly<Record<string, string>> | undefined> {
    const raw = await this.redis.hget(this.keys.feedback(ref.address, ref.turnId), "trace");
    if (raw === null) return undefined;
    try {
      return JSON.parse(raw) as Record<string, string>;
    } catch {
      return undefined;
    }
  }

  /**
   * Ends `voter`'s "what was wrong?" wait in the conversation, if there is
   * one (atomically: one message takes it), and keeps `text` with their vote
   * unless it is undefined (a message that only ends the wait). Returns
   * whether the text was kept.
   */
  async takeWhy(
    address: ConversationAddress,
    voter: string,
    text: string | undefined,
    at: number,
  ): Promise<boolean> {
    const key = this.keys.feedbackWhy(address, voter);
    // GETDEL (Redis 6.2): one command, where a MULTI of GET and DEL was four; every
    // message a person sends asks.
    const turnId = await this.redis.getdel(key);
    if (turnId === null || text === undefined) return false;
    const kept = await LUA.why.run(
      this.redis,
      [this.keys.feedback(address, turnId)],
      [voter, text, at],
    );
    return Number(kept) === 1;
  }

  /** The ratings of the conversation's turns named, in that order (undefined: not rated, or expired). */
  async ratings(
    address: ConversationAddress,
    turnIds: readonly string[],
  ): Promise<(AnswerRating | undefined)[]> {
    if (turnIds.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const turnId of turnIds) pipeline.hgetall(this.keys.feedback(address, turnId));
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, hash]) =>
      error ? undefined : ratingOf(hash as Record<string, string>),
    );
  }
}

function plain(address: ConversationAddress): ConversationAddress {
  return addressOnly(address);
}

function voteOf(value: string | null | undefined): Vote | undefined {
  return value === "up" || value === "down" ? value : undefined;
}

function refOf(raw: string | null): RatedAnswerRef | undefined {
  if (raw === null) return undefined;
  try {
    const value = JSON.parse(raw) as { address?: Record<string, unknown>; turnId?: unknown };
    const a = value.address;
    const parts = ["platform", "workspace", "channel", "conversation"] as const;
    if (!a || typeof value.turnId !== "string" || !parts.every((p) => typeof a[p] === "string")) {
      return undefined;
    }
    return { address: a as unknown as ConversationAddress, turnId: value.turnId };
  } catch {
    return undefined;
  }
}

/** A record's hash as a rating; undefined when it is empty (expired) or not one. */
export function ratingOf(hash: Readonly<Record<string, string>>): AnswerRating | undefined {
  if (hash.turn === undefined || hash.id === undefined) return undefined;
  const votes: StoredVote[] = [];
  for (const [field, value] of Object.entries(hash)) {
    if (!field.startsWith("vote:")) continue;
    const vote = voteOf(value);
    if (vote === undefined) continue;
    const voter = field.slice("vote:".length);
    const name = hash[`name:${voter}`];
    const why = hash[`why:${voter}`];
    votes.push({
      voter,
      vote,
      at: Number(hash[`voted:${voter}`]) || 0,
      ...(name ? { name } : {}),
      ...(why ? { why } : {}),
    });
  }
  votes.sort((a, b) => a.at - b.at || a.voter.localeCompare(b.voter));
  return {
    id: hash.id,
    turnId: hash.turn,
    contractHash: hash.contract ?? "",
    model: hash.model ?? "",
    promptTokens: Number(hash.prompt) || 0,
    cachedTokens: Number(hash.cached) || 0,
    completionTokens: Number(hash.completion) || 0,
    at: Number(hash.at) || 0,
    votes,
  };
}
