import type { Redis } from "ioredis";
import type { ConversationAddress } from "../core/conversation.ts";
import { type Activity, lineText, THINKING } from "../core/delivery/activity.ts";
import type { DeliveryTarget, Outbound } from "../ports/outbound.ts";
import { LuaScript } from "../store/lua.ts";
import type { DeliveryEnvironment } from "./delivery-environment.ts";

/** How often an indicator is sent again while it lasts: inside Discord's 10 s and Telegram's 5 s. */
export const REFRESH_MS = 4_000;
/** A day: longer than any turn's retries. */
const LINE_TTL_MS = 86_400_000;
/** Records the key a line is posted under, while the run holds the lease: see status-line-key-2.lua. */
const RECORD_KEY = LuaScript.file("status-line-key-2");
/** Records a posted line's ref while its record stands: see status-line-ref-1.lua. */
const RECORD_REF = LuaScript.file("status-line-ref-1");
/** Marks a line's record as being deleted: see status-line-ending-1.lua. */
const MARK_ENDING = LuaScript.file("status-line-ending-1");

/** One turn's status line, as far as a crash let it be recorded (see KeyScheme.turnStatusLine). */
interface LineRecord {
  readonly key?: string;
  readonly ref?: string;
}

/**
 * One turn's status line on a platform that has one (Outbound.activityLine):
 * its idempotency key is stored before it is posted and its ref once it is,
 * so the run that resumes a crashed one goes on using the line it left, and
 * deletes it with the answer, instead of leaving it beside the answer.
 */
export class StatusLine {
  readonly #key: string;
  readonly #lease: { readonly key: string; readonly token: string };
  /** The post's idempotency key: one per turn, whichever run posts it. */
  readonly #turnKey: string;
  #record: LineRecord = {};

  private constructor(
    private readonly redis: Redis,
    private readonly outbound: Outbound,
    private readonly removeMessage: (target: DeliveryTarget, ref: string) => Promise<void>,
    private readonly target: DeliveryTarget,
    key: string,
    lease: { readonly key: string; readonly token: string },
    turnId: string,
    private readonly resumed: boolean,
  ) {
    this.#key = key;
    this.#lease = lease;
    this.#turnKey = `status-${turnId}`;
  }

  /**
   * The turn's line, if the platform shows one; `resumed` reads what a
   * crashed run recorded. `leaseToken` is the run's hold on the
   * conversation: the line is posted only while it still holds it (a run
   * that only deletes a line needs none).
   */
  static async open(
    env: Pick<DeliveryEnvironment, "inbox" | "store">,
    outbound: Outbound,
    where: { readonly address: ConversationAddress; readonly target: DeliveryTarget },
    turnId: string,
    resumed: boolean,
    leaseToken?: string,
  ): Promise<StatusLine | undefined> {
    if (!outbound.activityLine || !outbound.remove) return undefined;
    // As a message of its own in the answer's thread: no reply, no ping.
    const { replyTo: _, ...target } = where.target;
    const key = env.store.keys.turnStatusLine(where.address, turnId);
    const lease = {
      key: env.store.keys.conversation(where.address).lease,
      token: leaseToken ?? "",
    };
    const remove = outbound.remove.bind(outbound);
    const line = new StatusLine(
      env.inbox.redis,
      outbound,
      remove,
      target,
      key,
      lease,
      turnId,
      resumed,
    );
    if (resumed) {
      const { key: postKey, ref } = await env.inbox.redis.hgetall(key);
      line.#record = { ...(postKey ? { key: postKey } : {}), ...(ref ? { ref } : {}) };
    }
    return line;
  }

  /** Whether a line is shown (or was on its way when a crashed run died). */
  get posted(): boolean {
    return this.#record.ref !== undefined;
  }

  /**
   * Posts the line, once; a crashed run's post under the same key is found,
   * not made twice. The key is the turn's, not this run's: a run whose lease
   * lapsed while it was slow (not dead) may post its line after the run that
   * took the turn over read the record, and both posts must be one message,
   * the one that run deletes. And it posts nothing once its lease is another
   * run's or gone, checked in Redis as the key is recorded: by then the run
   * that took over may have answered and deleted the line, and a line posted
   * after that would stay beside the answer. A post still on its way when
   * that run deleted the line (this run held the lease when it set out) is
   * deleted as it comes back, its record gone or marked as ending.
   */
  async post(text: string): Promise<void> {
    if (this.#record.ref !== undefined) return;
    const known = this.#record.key;
    const key = known ?? this.#turnKey;
    const { key: leaseKey, token } = this.#lease;
    const held = await RECORD_KEY.run(this.redis, [leaseKey, this.#key], [token, key, LINE_TTL_MS]);
    if (Number(held) !== 1) return;
    this.#record = { key };
    const ref = await this.outbound.post(this.target, text, {
      idempotencyKey: key,
      mayExist: known !== undefined || this.resumed,
      preview: true,
    });
    this.#record = { key, ref };
    if (Number(await RECORD_REF.run(this.redis, [this.#key], [key, ref])) === 1) return;
    // The record went while the post was on its way: the run that took the turn over deleted
    // the line before this post reached the platform, which then made it anew. No other run
    // knows of that message.
    this.#record = {};
    await this.removeMessage(this.target, ref);
  }

  /**
   * Deletes the line, a crashed run's too: one whose post was on its way
   * when it died is found by posting under its key again (the platform
   * answers with the message it made), then deleted. The record is marked
   * first, so a lapsed run's post that comes back before the record goes
   * deletes what it made. Best effort: a line that cannot be deleted now is
   * left for the next run of the turn.
   */
  async remove(): Promise<void> {
    const { key } = this.#record;
    if (key === undefined) return;
    try {
      const ref =
        this.#record.ref ??
        (await this.outbound.post(this.target, lineText(THINKING), {
          idempotencyKey: key,
          mayExist: true,
          preview: true,
        }));
      await MARK_ENDING.run(this.redis, [this.#key], [key]);
      await this.removeMessage(this.target, ref);
      await this.redis.del(this.#key);
      this.#record = {};
    } catch {
      // Left for the next run of the turn, if there is one.
    }
  }
}

/** The run a status is for. */
export interface TurnRun {
  readonly turnId: string;
  /** A resumed turn: a status line its crashed run left is read and used. */
  readonly resumed: boolean;
  /** The turn's lease: once it is lost, the status is left to the run that took the turn over. */
  readonly signal?: AbortSignal;
  /**
   * The token the run holds the conversation's lease by: the line is posted
   * only while the lease is still this run's, checked in Redis as the post's
   * key is recorded: a lease runs out before `signal` says so (the worker
   * learns it at its next renewal).
   * Unset: no lease is checked (nothing else runs the turn).
   */
  readonly leaseToken?: string;
  /** Waits until the turn is stored (throws if it never will be), before a line is posted under its id. */
  readonly stored?: () => Promise<void>;
  readonly now?: () => number;
}

/**
 * What a turn shows while it runs, from its start until its answer lands:
 * `typing` every few seconds on a platform with nothing more; the activity
 * on one with an indicator (Slack's status, Telegram's chat action), sent
 * when it changes, paced by the port's `activityEveryMs`, and again every
 * {@link REFRESH_MS}; and on a platform with a status line (Discord), one
 * line posted when the first tool starts and deleted at {@link end}: one
 * post and one delete a turn at most, none when no tool runs.
 *
 * @example
 * const status = await TurnStatus.open(env, outbound, { address, target }, { turnId, resumed });
 * const done = status.tool(toolActivity("web_search", args)); // "is searching the web…"
 * done();                                                     // back to "is thinking…"
 * await status.end();                                         // cleared, the line deleted
 */
export class TurnStatus {
  /** The tools running now, in the order they started: the newest is shown. */
  readonly #running: Activity[] = [];
  #shown: Activity | undefined;
  #lastSent = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> = Promise.resolve();
  /** A call is on its way to the platform. */
  #busy = false;
  /** The call due while one was on its way: only the newest waits, never a backlog. */
  #waiting: { readonly activity: Activity; readonly refresh: boolean } | undefined;
  #refreshing = true;
  /** The answer shows as it streams (a Telegram draft): see {@link answerShowing}. */
  #answerShowing = false;
  #ended = false;
  #lineStarted = false;
  #lineWork: Promise<void> = Promise.resolve();
  readonly #now: () => number;

  private constructor(
    private readonly outbound: Outbound,
    private readonly target: DeliveryTarget,
    private readonly line: StatusLine | undefined,
    private readonly run: TurnRun,
  ) {
    this.#now = run.now ?? Date.now;
  }

  /**
   * Starts showing the turn as thinking. On a platform with a status line,
   * a resumed turn first reads the line its crashed run may have left.
   */
  static async open(
    env: Pick<DeliveryEnvironment, "inbox" | "store">,
    outbound: Outbound,
    where: { readonly address: ConversationAddress; readonly target: DeliveryTarget },
    run: TurnRun,
  ): Promise<TurnStatus> {
    const line = await StatusLine.open(
      env,
      outbound,
      where,
      run.turnId,
      run.resumed,
      run.leaseToken,
    );
    const status = new TurnStatus(outbound, where.target, line, run);
    status.#send(THINKING, true);
    return status;
  }

  /** What the turn shows now: the newest running tool, else thinking. */
  get current(): Activity {
    return this.#running.at(-1) ?? THINKING;
  }

  /** A tool started; the returned function says it finished (the turn goes back to what it showed). */
  tool(activity: Activity): () => void {
    this.#running.push(activity);
    this.#changed();
    this.#showLine(activity);
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      this.#running.splice(this.#running.indexOf(activity), 1);
      this.#changed();
    };
  }

  /**
   * The answer's text now shows as it streams, in a draft that grows where
   * the person reads (a Telegram draft): an indicator beside it shows
   * nothing more, so none is sent while no tool runs. A tool that starts
   * shows again, and is refreshed while it runs.
   */
  answerShowing(): void {
    if (this.#answerShowing) return;
    this.#answerShowing = true;
    if (this.#running.length === 0) this.#cancel();
  }

  /** Stops refreshing: the run is over (its answer is next, or it failed); nothing is cleared. */
  pause(): void {
    this.#refreshing = false;
    this.#cancel();
  }

  #cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Shows a one-off activity (a file of the answer being uploaded) on an
   * indicator, paced like every change and not refreshed; nothing on a
   * status line.
   */
  show(activity: Activity): void {
    if (this.#ended || !this.outbound.showActivity) return;
    this.#schedule(this.#pace(), () => this.#send(activity, false));
  }

  /**
   * Ends the status once the answer landed (or the turn parked): the
   * indicator is cleared, or left showing `final` (waiting for approval),
   * and the status line deleted. A turn whose lease is lost leaves both to
   * the run that took it over. Best effort: a failure costs only the status.
   */
  async end(final?: Activity): Promise<void> {
    this.pause();
    this.#ended = true;
    if (this.run.signal?.aborted) return;
    const { outbound, target } = this;
    // After the calls in flight, and not waited for: an indicator never holds the turn's end.
    if (outbound.showActivity) {
      this.#sending = this.#sending.then(() =>
        outbound.showActivity?.(target, final).catch(() => {}),
      );
    }
    await this.#lineWork;
    await this.line?.remove();
  }

  #changed(): void {
    if (!this.#refreshing || !this.outbound.showActivity) return;
    if (sameActivity(this.#shown, this.current)) return;
    this.#schedule(this.#pace(), () => {
      // Changed back while it waited (a tool shorter than the gap): only the refresh is due.
      if (!sameActivity(this.#shown, this.current)) this.#send(this.current, true);
      else this.#schedule(this.#lastSent + REFRESH_MS - this.#now(), () => this.#refresh());
    });
  }

  #refresh(): void {
    this.#send(this.current, true);
  }

  /** How long a change waits: until the port's least gap since the last call has passed. */
  #pace(): number {
    const every = this.outbound.activityEveryMs ?? 1_000;
    return Math.max(0, this.#lastSent + every - this.#now());
  }

  #schedule(delay: number, run: () => void): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(run, delay);
    this.#timer.unref?.();
  }

  /** Sends the indicator (or typing) now; refreshed, it goes again in {@link REFRESH_MS}. */
  #send(activity: Activity, refresh: boolean): void {
    this.#timer = undefined;
    if (!this.#due(refresh)) return;
    // While the answer streams where the person reads, thinking adds nothing to it.
    if (refresh && this.#answerShowing && this.#running.length === 0) return;
    this.#lastSent = this.#now();
    this.#shown = activity;
    this.#call({ activity, refresh });
    if (refresh) this.#schedule(REFRESH_MS, () => this.#refresh());
  }

  /** Whether a call is still wanted: nothing after the end, no refresh after the run. */
  #due(refresh: boolean): boolean {
    return !this.#ended && (!refresh || this.#refreshing);
  }

  /**
   * One call at a time. On a slow platform a call due while one is on its
   * way waits, the newest only, and goes if it is still wanted then: a
   * backlog of refreshes would arrive together, after the answer.
   */
  #call(next: { readonly activity: Activity; readonly refresh: boolean }): void {
    if (this.#busy) {
      this.#waiting = next;
      return;
    }
    this.#busy = true;
    const { outbound, target } = this;
    this.#sending = (async () => {
      for (let call: typeof next | undefined = next; call; ) {
        const { activity } = call;
        await (outbound.showActivity
          ? outbound.showActivity(target, activity)
          : outbound.typing(target)
        ).catch(() => {});
        call = this.#waiting;
        this.#waiting = undefined;
        if (call && !this.#due(call.refresh)) call = undefined;
      }
      this.#busy = false;
    })();
  }

  /** Posts the status line for the first tool of the turn, once; a line a crashed run left is kept. */
  #showLine(activity: Activity): void {
    const line = this.line;
    if (!line || this.#lineStarted || line.posted) return;
    this.#lineStarted = true;
    this.#lineWork = (async () => {
      // The line is posted under this turn's id: the turn must be stored first.
      await this.run.stored?.();
      if (this.run.signal?.aborted || this.#ended) return;
      await line.post(lineText(activity));
    })().catch(() => {});
  }
}

function sameActivity(a: Activity | undefined, b: Activity): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
