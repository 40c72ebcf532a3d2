import type { Readable } from "node:stream";
import type { Redis } from "ioredis";
import type { CommandPolicy } from "../../core/commands/index.ts";
import { type ConversationAddress, conversationKey } from "../../core/conversation.ts";
import { type Channel, type ChannelRuntime, ChannelRuntimeError } from "../../ingress/channel.ts";
import type { DeliveryTarget, Outbound, OutgoingFile, PostOptions } from "../../ports/outbound.ts";
import { RedisOutbox } from "./outbox.ts";
import { atTerminal } from "./terminal.ts";

export interface ConsoleChannelOptions {
  /** Where messages are typed; stdin by default. */
  readonly input?: Readable;
  /** Where answers go; stdout by default. */
  readonly print?: (text: string) => void;
  /** The conversation the terminal is; `console:local/terminal/main` by default. */
  readonly address?: ConversationAddress;
  /** Who may change which scope; the person at the terminal owns the bot by default. */
  readonly policy?: CommandPolicy;
  /**
   * Greet, prompt and keep answers above the line being typed. Default: when
   * the channel reads stdin and prints to stdout and both are a terminal.
   */
  readonly interactive?: boolean;
}

/**
 * A local conversation on a stream, as a {@link Channel}: each line is a
 * message, `/tools` and `/skills` lines are commands, answers print as
 * workers deliver them. Answers travel through a Redis stream (the outbox),
 * so the worker may be another process. At the end of input it waits for
 * the conversation to come to rest; {@link ConsoleChannel.finished} says when.
 *
 * @example
 * import { consoleChannel, createBot } from "switchyard";
 *
 * const terminal = consoleChannel();
 * const bot = createBot({ channels: [terminal] });
 * await bot.start();
 * await terminal.finished; // end of input, every answer printed
 * await bot.stop();
 */
export class ConsoleChannel implements Channel {
  readonly platform = "console";
  readonly outbound: Outbound;
  readonly #options: ConsoleChannelOptions;
  #outbox: RedisOutbox | undefined;
  #reader: Redis | undefined;
  readonly #finished = settled();

  constructor(options: ConsoleChannelOptions = {}) {
    this.#options = options;
    const outbox = () => {
      if (this.#outbox === undefined) {
        throw new Error("The console channel posts once it has started: call bot.start() first.");
      }
      return this.#outbox;
    };
    this.outbound = {
      maxLength: 40_000,
      canEdit: false,
      post: (target: DeliveryTarget, text: string, options: PostOptions) =>
        outbox().post(target, text, options),
      edit: (target: DeliveryTarget, ref: string, text: string) => outbox().edit(target, ref, text),
      upload: (target: DeliveryTarget, file: OutgoingFile, options: { idempotencyKey: string }) =>
        outbox().upload(target, file, options),
      typing: async () => {},
    };
  }

  /** Whether a person types at a terminal here: the greeting and the prompt show, logs stay off it. */
  get interactive(): boolean {
    const { input, print, interactive } = this.#options;
    return interactive ?? (input === undefined && print === undefined && atTerminal());
  }

  /** Resolves once the input has ended and every answer to it has printed; rejects if reading fails. */
  get finished(): Promise<void> {
    return this.#finished.promise;
  }

  async start(runtime: ChannelRuntime): Promise<void> {
    const { idle } = runtime;
    if (idle === undefined) {
      throw new ChannelRuntimeError(
        "The console channel waits for its conversation to come to rest at the end of its input, and this runtime cannot tell: start it with one that has idle (createBot's does).",
      );
    }
    // The conversation loop and the chat commands it answers load with the console, not with
    // every process that builds the channel (a worker only needs its outbox).
    const { runConsole } = await import("./channel.ts");
    const keys = runtime.sources.store.keys;
    const outbox = consoleOutbox({ redis: runtime.redis, prefix: keys.prefix });
    this.#outbox = outbox;
    // Blocking stream reads need a connection of their own.
    const reader = runtime.redis.duplicate({
      connectionName: "switchyard:reader",
      enableAutoPipelining: false,
    });
    this.#reader = reader;
    const print = this.#options.print ?? ((text: string) => void process.stdout.write(text));
    runConsole({
      input: this.#options.input ?? process.stdin,
      print,
      queue: runtime.ungatedQueue,
      idle,
      outbox,
      reader,
      sources: runtime.sources,
      gate: runtime.gate,
      ...(runtime.stopTurn ? { stopTurn: runtime.stopTurn } : {}),
      ...(runtime.approvals ? { approvals: runtime.approvals } : {}),
      ...(runtime.feedback ? { feedback: runtime.feedback } : {}),
      ...(runtime.schedules ? { schedules: runtime.schedules } : {}),
      ...(runtime.skills ? { skillLibrary: runtime.skills } : {}),
      ...(this.#options.policy ? { policy: this.#options.policy } : {}),
      ...(this.#options.address ? { address: this.#options.address } : {}),
      ...(this.interactive ? { terminal: process.stdout } : {}),
    })
      .finally(() => reader.disconnect())
      .then(this.#finished.resolve, this.#finished.reject);
  }

  async stop(): Promise<void> {
    this.#reader?.disconnect();
  }
}

/** A promise with its resolve and reject (Node 20 has no `Promise.withResolvers`). */
function settled() {
  let resolve: () => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // Nobody need wait for the console to finish; whoever does still sees the failure.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/**
 * The console channel: a conversation on stdin and stdout (or the streams
 * given), the channel `switchyard start` runs when no platform is set.
 *
 * @example
 * const bot = createBot({ tools: [weather], channels: [consoleChannel()] });
 */
export function consoleChannel(options: ConsoleChannelOptions = {}): ConsoleChannel {
  return new ConsoleChannel(options);
}

/**
 * The console's outbound as every process builds it, whatever channels it
 * runs: a worker answers the terminal of another process through it.
 */
export function consoleOutbox(parts: {
  readonly redis: Redis;
  readonly prefix: string;
  /** Where the files answers carry are written; default: `switchyard-files` in the OS's temp folder. */
  readonly filesDir?: string | undefined;
}): RedisOutbox {
  return new RedisOutbox(parts.redis, parts.prefix, conversationKey, parts.filesDir);
}
