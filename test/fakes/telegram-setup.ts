import type { User } from "grammy/types";
import { afterEach } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import type { AnyTool } from "../../src/core/tools/tool.ts";
import type { ChannelRuntime } from "../../src/ingress/channel.ts";
import { type OpsServer, startOpsServer } from "../../src/observability/http.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import {
  TelegramChannel,
  type TelegramChannelOptions,
} from "../../src/platforms/telegram/channel.ts";
import type { StopTurn } from "../../src/ports/turn-control.ts";
import type { SwitchyardOptions } from "../../src/runtime/app.ts";
import type { SkillLibrary } from "../../src/runtime/skill-folders.ts";
import {
  FAKE_TELEGRAM,
  type FakeTelegram,
  startFakeTelegram,
} from "../../src/testing/fakes/telegram-api.ts";
import { channelRuntime } from "../support/channels.ts";
import { bigTool, lookupTool, type Pipeline, startPipeline } from "../support/pipeline.ts";

/** People of the fake Telegram: Ada administers the team group, Bob does not. */
export const ALICE: User = { id: 5001, is_bot: false, first_name: "Alice", username: "alice_a" };
export const ADA: User = { id: 5002, is_bot: false, first_name: "Ada", username: "ada_admin" };
export const BOB: User = { id: 5003, is_bot: false, first_name: "Bob", username: "bob_b" };
/** A forum supergroup: topics are conversations of their own. */
export const TEAM = -1001234567890;
export const BOT = FAKE_TELEGRAM.bot;
export const TOOLS = [lookupTool, bigTool];

export interface TelegramSetup {
  readonly telegram: FakeTelegram;
  readonly pipe: Pipeline;
  readonly channel: TelegramChannel;
  readonly runtime: ChannelRuntime;
  readonly warnings: string[];
}

export interface StartTelegramOptions {
  channel?: Partial<TelegramChannelOptions>;
  skills?: SkillLibrary;
  streamEditMs?: number;
  runtime?: Partial<ChannelRuntime>;
  telegram?: FakeTelegram;
  pipe?: Pipeline;
  tools?: AnyTool[];
  /** The pipeline's Redis (queue, state, the channel's ledger), when not the shared test Redis. */
  redisUrl?: string;
  /** The pipeline's key prefix, when a test must write under it before the channel starts. */
  prefix?: string;
  /** The config both the worker and the channel's ingress read (access, limits, permissions, models); default: DMs open. */
  config?: () => SwitchyardConfig;
  /** `/stop`'s port, when not the pipeline's own signals. */
  stopTurn?: StopTurn;
  /** More pipeline options (capabilities, a transcriber). */
  pipeline?: Partial<SwitchyardOptions>;
}

/**
 * A real grammY bot on the fake Bot API, a real pipeline (Redis, BullMQ,
 * the fake model) behind it: Alice's private chat and the TEAM forum exist.
 */
export async function startTelegram(options: StartTelegramOptions = {}): Promise<TelegramSetup> {
  const telegram = options.telegram ?? (await startFakeTelegram());
  telegram.addChat({ id: ALICE.id, type: "private", title: "Alice" });
  telegram.addChat({
    id: TEAM,
    type: "supergroup",
    title: "Team",
    is_forum: true,
    admins: [ADA.id],
  });
  const channel = new TelegramChannel({
    token: telegram.token,
    apiRoot: telegram.apiRoot,
    pollTimeoutSeconds: 5,
    ...options.channel,
  });
  const pipe =
    options.pipe ??
    (await startPipeline({
      tools: options.tools ?? TOOLS,
      outbounds: { telegram: channel.outbound },
      streamEditMs: options.streamEditMs ?? 0,
      ...(options.skills ? { skills: options.skills } : {}),
      ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}),
      ...(options.prefix ? { prefix: options.prefix } : {}),
      ...(options.config ? { config: options.config, model: "fake-model" } : {}),
      ...options.pipeline,
    }));
  await pipe.app.worker?.worker.waitUntilReady();
  const warnings: string[] = [];
  const runtime: ChannelRuntime = {
    ...channelRuntime(pipe, options.tools ?? TOOLS, {
      ...(options.skills ? { skills: options.skills } : {}),
      ...(options.config ? { config: options.config } : {}),
      logger: { warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`) },
      ...(options.stopTurn ? { stopTurn: options.stopTurn } : {}),
      // The channel's commands see what the worker has, as in the bot.
      ...(options.pipeline?.capabilities ? { capabilities: options.pipeline.capabilities } : {}),
    }),
    ...options.runtime,
  };
  await channel.start(runtime);
  return { telegram, pipe, channel, runtime, warnings };
}

/** The secret of {@link startWebhookTelegram}'s webhook. */
export const WEBHOOK_SECRET = "webhook-secret_0123";

export interface WebhookSetup extends TelegramSetup {
  /** The process's HTTP server, which carries the webhook route; closed after the rest. */
  readonly ops: OpsServer;
}

/**
 * {@link startTelegram} taking updates by webhook: its route on an ops
 * server of its own, as `switchyard start` serves it, with {@link WEBHOOK_SECRET}.
 */
export async function startWebhookTelegram(
  options: StartTelegramOptions = {},
): Promise<WebhookSetup> {
  const ops = await startOpsServer({
    port: 0,
    host: "127.0.0.1",
    metrics: new Metrics(),
    ready: () => true,
  });
  const setup = await startTelegram({
    ...options,
    channel: {
      ...options.channel,
      webhookUrl: `http://127.0.0.1:${ops.port}/telegram/updates`,
      webhookSecret: WEBHOOK_SECRET,
    },
    runtime: { ...options.runtime, http: ops },
  });
  return { ...setup, ops };
}

export interface TelegramSetups {
  start(options?: StartTelegramOptions): Promise<TelegramSetup>;
  startWebhook(options?: StartTelegramOptions): Promise<WebhookSetup>;
  /** Closes a setup put together by hand after the test, with the others. */
  add(setup: TelegramSetup): void;
}

/**
 * Call once at the top of a test file: what it returns starts setups that
 * are closed after each test, every channel stopped (newest first) before
 * any pipeline, fake Telegram or ops server closes.
 */
export function useTelegram(): TelegramSetups {
  const setups: (TelegramSetup | WebhookSetup)[] = [];
  afterEach(async () => {
    const done = setups.splice(0);
    for (const s of [...done].reverse()) await s.channel.stop();
    for (const s of done) {
      // Setups may share a pipeline: the second close has nothing left to do.
      await s.pipe.close().catch(() => {});
      await s.telegram.close();
    }
    for (const s of done) if ("ops" in s) await s.ops.close();
  });
  const tracked = <T extends TelegramSetup>(setup: T) => {
    setups.push(setup);
    return setup;
  };
  return {
    start: async (options) => tracked(await startTelegram(options)),
    startWebhook: async (options) => tracked(await startWebhookTelegram(options)),
    add: (setup) => void setups.push(setup),
  };
}
