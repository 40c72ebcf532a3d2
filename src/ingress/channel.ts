import type { Redis } from "ioredis";
import type { QueueBehaviour, QueueMode } from "../core/agent/queue-mode.ts";
import type { PermissionsConfig } from "../core/config/index.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import type { LoggerPort } from "../core/logger.ts";
import type { OpsServer } from "../observability/http.ts";
import type { AdmitCheck } from "../ports/admission.ts";
import type { Approvals } from "../ports/approvals.ts";
import type { ConversationDirectory } from "../ports/directory.ts";
import type { Enqueue, IsIdle } from "../ports/enqueue.ts";
import type { Feedback } from "../ports/feedback.ts";
import type { Outbound } from "../ports/outbound.ts";
import type { ScheduleDesk } from "../ports/schedules.ts";
import type { StopTurn } from "../ports/turn-control.ts";
import type { ContractSources } from "../turn/contract.ts";
import type { IngressGate } from "./access/gate.ts";
import type { ReloadableSkills } from "./commands/skills-command.ts";

/**
 * What a channel's ingress gets from the process: where to put messages, how
 * to answer commands, and an HTTP server to mount webhook routes on.
 */
export interface ChannelRuntime {
  /**
   * Puts a message in the queue as it is: past the access gate, the chat
   * commands and the limits, so a stranger under `pairing` would reach the
   * model. Only for a message that has been through them; `takeMessage`
   * uses it after they pass. A channel of your own calls `takeMessage`.
   */
  readonly ungatedQueue: Enqueue;
  /**
   * Whether a conversation is at rest, nothing queued and no turn running:
   * the console waits for it at the end of its input. Unset: this process
   * cannot tell, and a channel that needs it refuses to start.
   */
  readonly idle?: IsIdle;
  /**
   * Renamed `ungatedQueue`, so that code enqueueing past the gate says so.
   * Reading it throws a {@link ChannelRuntimeError} that names `takeMessage`.
   * @deprecated Call `takeMessage(runtime, message, { actor, reply })`.
   */
  readonly queue?: never;
  /** For the channel's own small state (which threads the bot is in), under the store's key scheme. */
  readonly redis: Redis;
  /** For `/tools` and `/skills`: the conversation's contract and skills as a turn would see them. */
  readonly sources: ContractSources;
  /** Who may change which scope, as the config says now (it reloads). */
  readonly permissions: () => PermissionsConfig;
  readonly skills?: ReloadableSkills;
  /** Who may talk to the bot and how much: every message passes it before it is queued. */
  readonly gate: IngressGate;
  /** The process's HTTP server (`SWITCHYARD_HTTP_PORT`), for webhooks such as `/slack/events`. */
  readonly http?: OpsServer;
  readonly logger: LoggerPort;
  /** `/stop`: signals the conversation's running turn, on any worker. */
  readonly stopTurn?: StopTurn;
  /** Records a decision on an approval request (a click or `/approve`), on any ingress. */
  readonly approvals?: Approvals;
  /** Records votes on answers (a 👍 / 👎 click, `/good`, `/bad`) and keeps "what was wrong?", on any ingress. */
  readonly feedback?: Feedback;
  /** A check of its own a message for the model must pass before it is queued (the gate checks limits and budgets). */
  readonly admit?: AdmitCheck;
  /** The worker's queue behaviour, so `/queue` shows what turns will do. */
  readonly queueBehaviour?: (address: ConversationAddress, chosen?: QueueMode) => QueueBehaviour;
  /** Where `/schedule` makes and changes schedules; without it `/schedule` says it is not available. */
  readonly schedules?: ScheduleDesk;
  /**
   * The channel's own directory, for `/schedule add ... in #channel`: each
   * channel puts its own in (see {@link withDirectory}) before it builds the
   * command context.
   */
  readonly directory?: ConversationDirectory;
}

/** The runtime with the channel's directory in it, unless it has one already. */
export function withDirectory(
  runtime: ChannelRuntime,
  directory: ConversationDirectory | undefined,
): ChannelRuntime {
  if (directory === undefined || runtime.directory !== undefined) return runtime;
  return { ...runtime, directory };
}

/**
 * A chat platform: ingress (platform events in, normalized to
 * InboundMessage and enqueued, commands answered), outbound (the worker's
 * port back to the platform) and its command UI. Each is its own file under
 * `src/platforms/<platform>/`; this is what ties them together.
 *
 * Ingress and outbound run in different processes when roles are split: a
 * worker builds the channel for its outbound only and never calls `start`.
 *
 * A platform of your own is easiest written with `defineChannel`
 * (define-channel.ts), which builds this from the platform's outbound and
 * ingress; its ingress hands each message to `takeMessage`, the gate ->
 * commands -> limits -> queue path every platform's messages take.
 */
export interface Channel {
  /** The `platform` of the messages it produces and the key of its outbound. */
  readonly platform: string;
  readonly outbound: Outbound;
  /** Finds the platform's other conversations and who may post there (`send_message`); REST only, like outbound. */
  readonly directory?: ConversationDirectory;
  /** Starts taking platform events. Resolves once it is ready to ack them. */
  start(runtime: ChannelRuntime): Promise<void>;
  /** Stops taking events; events already acked are in the queue. */
  stop(): Promise<void>;
  /**
   * Readies the outbound of a process that runs turns but takes no platform
   * events (role `worker`), where `start` is never called: Discord posts over
   * REST without a gateway session, Telegram remembers its posts in Redis.
   */
  prepareWorker?(parts: WorkerParts): void;
  /** Counts what the channel survives (a failed gateway event, interaction, message) by stage, into the metrics. */
  countFailuresWith?(count: (stage: string) => void): void;
  /**
   * For a channel whose input can end (the console at the end of its
   * input): resolves once it has and every answer has been given, so the
   * process can stop; a channel without it runs until it is stopped.
   */
  readonly finished?: Promise<void>;
}

/** A channel used the process's runtime the wrong way; the message says the fix. */
export class ChannelRuntimeError extends Error {
  override readonly name = "ChannelRuntimeError";
}

/**
 * What reading `runtime.queue` throws. A channel written against it before
 * the rename enqueued every message past the access gate, the commands and
 * the limits; failing loudly at its first message beats a bot that anyone
 * can talk to.
 */
export function removedQueue(): never {
  throw new ChannelRuntimeError(
    "runtime.queue is gone: it queued messages past the access gate, chat commands and limits, so anyone could talk to the bot. Hand each message to takeMessage(runtime, message, { actor, reply }) instead (see defineChannel); runtime.ungatedQueue is for a message that has been through them.",
  );
}

/** What a worker-only process hands a channel's outbound: the shared Redis, its key prefix, a logger. */
export interface WorkerParts {
  readonly redis: Redis;
  readonly prefix: string;
  readonly logger: LoggerPort;
}
