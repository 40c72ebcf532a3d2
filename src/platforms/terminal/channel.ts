import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Redis } from "ioredis";
import type { CommandPolicy } from "../../core/commands/index.ts";
import {
  type ConversationAddress,
  conversationKey,
  type InboundMessage,
} from "../../core/conversation.ts";
import type { IngressGate } from "../../ingress/access/gate.ts";
import { commandServices } from "../../ingress/chat-commands.ts";
import type { ReloadableSkills } from "../../ingress/commands/skills-command.ts";
import {
  type MessageOrigin,
  type MessagePath,
  type RoutedMessage,
  takeMessage,
} from "../../ingress/take-message.ts";
import type { AdmitCheck } from "../../ports/admission.ts";
import type { Approvals } from "../../ports/approvals.ts";
import type { Enqueue, IsIdle } from "../../ports/enqueue.ts";
import type { Feedback } from "../../ports/feedback.ts";
import type { Outbox } from "../../ports/outbox.ts";
import type { ScheduleDesk } from "../../ports/schedules.ts";
import type { StopTurn } from "../../ports/turn-control.ts";
import type { ContractSources } from "../../turn/contract.ts";
import { consoleAttachment } from "./files.ts";
import { CONSOLE_GREETING, PROMPT } from "./terminal.ts";

export const CONSOLE_ADDRESS: ConversationAddress = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "main",
};

/** The person at the terminal runs the bot, so they own it. */
export const CONSOLE_USER = "console-user";

export interface ConsoleOptions {
  readonly input: Readable;
  readonly print: (text: string) => void;
  readonly queue: Enqueue;
  /** Whether the conversation is at rest, to wait for its answers at the end of input. */
  readonly idle: IsIdle;
  readonly outbox: Outbox;
  /** A connection of its own for the blocking stream reads. */
  readonly reader: Redis;
  readonly sources: ContractSources;
  /** The access policy and limits, as every channel's messages pass them. */
  readonly gate: IngressGate;
  readonly policy?: CommandPolicy;
  /** For `/skills reload`. */
  readonly skillLibrary?: ReloadableSkills;
  readonly address?: ConversationAddress;
  /** For `/stop`. */
  readonly stopTurn?: StopTurn;
  /** For `/approve` and `/deny`. */
  readonly approvals?: Approvals;
  /** For `/good` and `/bad` (the terminal shows no buttons), and the 👎's "what was wrong?". */
  readonly feedback?: Feedback;
  /** A check of its own a message must pass before it is queued (the gate checks limits and budgets). */
  readonly admit?: AdmitCheck;
  /** For `/schedule`. */
  readonly schedules?: ScheduleDesk;
  /**
   * The terminal, when a person types at one: the greeting, a prompt, and
   * answers printed above the line being typed. Unset: lines in, answers out.
   */
  readonly terminal?: Writable;
}

/**
 * A local conversation on stdin and stdout: each line is a message, `/tools`
 * lines are commands, answers are printed as workers deliver them (through
 * the Redis outbox, so the worker may be another process). At the end of
 * input it waits for the conversation to come to rest, then returns.
 */
export async function runConsole(given: ConsoleOptions): Promise<void> {
  const { lines, options } = openLines(given);
  const address = options.address ?? CONSOLE_ADDRESS;
  const policy = options.policy ?? {
    owners: [CONSOLE_USER],
    admins: [],
    conversation: "anyone" as const,
  };
  const take = consolePath(options, policy);
  const key = conversationKey(address);
  let since = await lastEntryId(options.reader, options.outbox.stream);
  let reading = true;
  // Requests with controls whose outcome (their one edit) is still to print.
  const requests = new Set<string>();
  const drain = async (blockMs: number) => {
    const entries = await options.outbox.read(since, blockMs, options.reader);
    for (const entry of entries) {
      since = entry.id;
      if (entry.conversation !== key) continue;
      if (entry.kind !== "edit") {
        if (entry.controls) requests.add(entry.id);
        options.print(`${entry.text}\n`);
      } else if (entry.ref !== undefined && requests.delete(entry.ref)) {
        // The terminal streams nothing, so an edit is a request's outcome: "Approved by ...".
        options.print(`${entry.text}\n`);
      }
    }
  };
  const tail = (async () => {
    while (reading) await drain(200);
  })();

  lines.prompt();
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === "") {
      lines.prompt();
      continue;
    }
    const message: InboundMessage = {
      ...address,
      user: CONSOLE_USER,
      userName: process.env.USER ?? "you",
      kind: "dm",
      text: line,
      attachments: [],
      eventId: randomUUID(),
      time: Date.now(),
    };
    await take(message);
    lines.prompt();
  }

  // End of input: let the queued turns finish and their answers print.
  while (!(await options.idle(address))) await sleep(100);
  reading = false;
  await tail;
  await drain(1);
}

/** The lines typed, and the options with `print` made to keep the prompt below what it prints. */
function openLines(options: ConsoleOptions): {
  lines: { prompt(): void; [Symbol.asyncIterator](): AsyncIterator<string> };
  options: ConsoleOptions;
} {
  const { terminal } = options;
  if (terminal === undefined) {
    const lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY });
    // Taken now: lines read before the loop starts wait in the iterator instead of being lost.
    const typed = lines[Symbol.asyncIterator]();
    return { lines: { prompt: () => {}, [Symbol.asyncIterator]: () => typed }, options };
  }
  terminal.write(`${CONSOLE_GREETING}\n`);
  const lines = createInterface({
    input: options.input,
    output: terminal,
    prompt: PROMPT,
    terminal: true,
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  const typed = lines[Symbol.asyncIterator]();
  let open = true;
  lines.once("close", () => {
    open = false;
  });
  // Raw mode takes Ctrl-C from the kernel: hand it back, so the process stops as it would anywhere.
  lines.on("SIGINT", () => {
    lines.close();
    process.kill(process.pid, "SIGINT");
  });
  const print = (text: string) => {
    if (!open) return options.print(text);
    // Above the line being typed: clear it, print, and draw the prompt and the typing again.
    terminal.write("\r\x1b[K");
    options.print(text);
    lines.prompt(true);
  };
  return {
    lines: { prompt: () => open && lines.prompt(), [Symbol.asyncIterator]: () => typed },
    options: { ...options, print },
  };
}

/**
 * The path every channel's messages take, for the terminal: the person at
 * it owns the bot, so the gate always lets them in (the limits count them
 * too), and `/attach` is a command of its own.
 */
function consolePath(options: ConsoleOptions, policy: CommandPolicy) {
  const runtime: MessagePath = {
    ungatedQueue: options.queue,
    sources: options.sources,
    permissions: () => policy,
    gate: options.gate,
    ...commandServices({ ...options, skills: options.skillLibrary }),
  };
  const say = async (text: string) => options.print(`${text}\n`);
  const origin: MessageOrigin = {
    actor: { id: CONSOLE_USER, isPlatformAdmin: true },
    reply: say,
    // Each line is an event of its own: nothing delivers it twice.
    claimed: true,
    admit: { trusted: true },
    route: (message) => attachCommand(message, say),
  };
  return (message: InboundMessage) => takeMessage(runtime, message, origin);
}

/** `/attach <path> [message]`: the file and the rest of the line go to the model together. */
async function attachCommand(
  message: InboundMessage,
  say: (text: string) => Promise<void>,
): Promise<RoutedMessage | undefined> {
  if (!/^\/attach\b/.test(message.text)) return undefined;
  const { attachment, text, problem } = await consoleAttachment(message.text);
  if (problem || !attachment) {
    await say(`${problem}`);
    return { kind: "answered" };
  }
  return { kind: "message", text, attachments: [attachment] };
}

async function lastEntryId(redis: Redis, stream: string): Promise<string> {
  const last = (await redis.xrevrange(stream, "+", "-", "COUNT", 1)) as [string, string[]][];
  return last[0]?.[0] ?? "0";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
