import type { Redis } from "ioredis";
import { type ConversationAddress, conversationKey } from "../core/conversation.ts";
import type { LoggerPort } from "../core/logger.ts";
import type { KeyScheme } from "../store/keys.ts";
import { LuaScript } from "../store/lua.ts";

/** What a signal asks of a running turn. */
export type TurnSignalKind = "stop" | "interrupt";

/** How long a signal waits for its turn to see it (a worker may be resuming it after a crash). */
const SIGNAL_TTL_MS = 10 * 60_000;

/** Signals the turn in progress, if any; see the script. */
const SIGNAL = LuaScript.file("turn-signal-3");

/** The signal and (steering) the new messages a turn finds at a step boundary. */
const BOUNDARY = LuaScript.file("turn-boundary-2");

/** A running turn's ear for signals. */
export interface TurnWatch {
  /** Aborted, with the signal's kind as its reason, when the turn is told to stop or is interrupted. */
  readonly signal: AbortSignal;
  /** Acts on a signal found another way (at a boundary, or stored for a resumed turn). */
  abort(kind: TurnSignalKind): void;
  done(): void;
}

/** What a turn sees at a step boundary. */
export interface Boundary {
  readonly signal: TurnSignalKind | undefined;
  /** Raw inbox entries after the ones the turn consumed (only when steering). */
  readonly arrived: readonly string[];
}

/**
 * Stop and interrupt signals for running turns, across processes: the signal
 * is written next to the conversation's keys (so a turn resumed after a crash
 * still sees it) and published, so the worker running the turn, on any
 * machine, cancels its model request at once instead of at its next step.
 *
 * @example
 * const signals = new TurnSignals(redis, subscriber, keys);
 * await signals.listen();
 * await signals.send(address, "stop"); // false: nothing was running
 */
export class TurnSignals {
  readonly #running = new Map<string, AbortController>();
  readonly #addresses = new Map<string, ConversationAddress>();
  readonly #channel: string;
  #listening = false;

  constructor(
    private readonly redis: Redis,
    /** A connection of its own: a subscribed connection takes no other commands. */
    private readonly subscriber: Redis | undefined,
    private readonly keys: KeyScheme,
    private readonly logger?: LoggerPort,
    /**
     * Cancels the approval request a parked turn waits on, and wakes it (the
     * approvals desk's `cancel`): a parked turn runs on no worker, so no
     * watch hears a stop; true when one was cancelled.
     */
    private readonly cancelParked?: (address: ConversationAddress) => Promise<boolean>,
  ) {
    this.#channel = keys.turnSignalChannel();
  }

  /** Starts hearing signals published by any process. */
  async listen(): Promise<void> {
    if (this.#listening || !this.subscriber) return;
    this.#listening = true;
    this.subscriber.on("message", (channel: string, message: string) => {
      if (channel !== this.#channel) return;
      const [conversation, turnId, kind] = message.split("|");
      this.#running.get(`${conversation}|${turnId}`)?.abort(kind);
    });
    // A signal published while the subscription was down is still in Redis: look for the turns running here.
    this.subscriber.on("ready", () => {
      for (const [key, controller] of this.#running) void this.#recheck(key, controller);
    });
    await this.subscriber.subscribe(this.#channel);
  }

  async #recheck(key: string, controller: AbortController): Promise<void> {
    const at = key.lastIndexOf("|");
    const watched = this.#addresses.get(key);
    if (!watched || controller.signal.aborted) return;
    const found = await this.boundary(watched, key.slice(at + 1), 0, false).catch(() => undefined);
    if (found?.signal) controller.abort(found.signal);
  }

  async close(): Promise<void> {
    if (!this.#listening || !this.subscriber) return;
    this.#listening = false;
    await this.subscriber.unsubscribe(this.#channel).catch(() => {});
  }

  /**
   * Signals the conversation's running turn; false when no turn was running
   * (or, to interrupt, none older than the waiting messages). A stop also
   * cancels the request a parked turn waits on, which wakes it to end.
   */
  async send(address: ConversationAddress, kind: TurnSignalKind): Promise<boolean> {
    const k = this.keys.conversation(address);
    const turnId = await SIGNAL.run(
      this.redis,
      [k.checkpoint, k.control, k.inbox],
      [kind, SIGNAL_TTL_MS, this.#channel, conversationKey(address)],
    );
    // After the signal is stored: the woken turn finds it and ends as a stopped turn does.
    if (kind === "stop" && typeof turnId === "string") await this.cancelParked?.(address);
    return typeof turnId === "string";
  }

  /**
   * Watches for signals to one turn while it runs: the returned signal aborts
   * (with the kind as its reason) when one is published or found at a
   * boundary. `done` stops watching.
   */
  watch(address: ConversationAddress, turnId: string): TurnWatch {
    const key = `${conversationKey(address)}|${turnId}`;
    const controller = new AbortController();
    this.#running.set(key, controller);
    this.#addresses.set(key, address);
    return {
      signal: controller.signal,
      abort: (kind) => controller.abort(kind),
      done: () => {
        if (this.#running.get(key) !== controller) return;
        this.#running.delete(key);
        this.#addresses.delete(key);
      },
    };
  }

  /** Reads what a turn finds at a step boundary, in one round trip. */
  async boundary(
    address: ConversationAddress,
    turnId: string,
    consumed: number,
    steering: boolean,
  ): Promise<Boundary> {
    const k = this.keys.conversation(address);
    const [signal, arrived] = (await BOUNDARY.run(
      this.redis,
      [k.control, k.inbox],
      [turnId, consumed, steering ? 1 : 0],
    )) as [string | null | false, string[]];
    const kind = signal === "stop" || signal === "interrupt" ? signal : undefined;
    if (signal && !kind) this.logger?.warn("an unknown turn signal was ignored", { signal });
    return { signal: kind, arrived };
  }
}
