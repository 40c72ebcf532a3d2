import { afterEach } from "vitest";
import type { SkillFolders, SwitchyardConfig } from "../../src/core/config/index.ts";
import type { AnyTool } from "../../src/core/tools/tool.ts";
import { SlackChannel, type SlackChannelOptions } from "../../src/platforms/slack/channel.ts";
import type { SlackConfig } from "../../src/platforms/slack/config-section.ts";
import type { StopTurn } from "../../src/ports/turn-control.ts";
import type { SwitchyardOptions } from "../../src/runtime/app.ts";
import { loadSkills } from "../../src/runtime/skill-folders.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  type FakeSlackUser,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import type { SlackRateLimits } from "../../src/testing/fakes/slack-limits.ts";
import { type FakeSocketMode, startFakeSocketMode } from "../fakes/slack-socket.ts";
import { channelRuntime } from "./channels.ts";
import { bigTool, lookupTool, type Pipeline, startPipeline } from "./pipeline.ts";

export const SLACK_SECRET = "test-signing-secret";
export const SLACK_APP_TOKEN = "xapp-1-A0FAKEAPP-1700000000-0a1b2c3d4e5f";

/** A warning a channel logged through its runtime's logger. */
export interface LoggedWarning {
  readonly message: string;
  readonly fields?: Record<string, unknown>;
}

/**
 * One pipeline (Redis, the turn worker, the fake model) with one or more
 * Slack ingress processes in front of it, each a real SlackChannel against
 * the fake Web API: over HTTP (each its own Events API port) or Socket Mode
 * (each its own connection to one fake socket endpoint).
 */
export interface SlackHarness {
  readonly pipe: Pipeline;
  readonly slack: FakeSlackApi;
  readonly socket: FakeSocketMode | undefined;
  readonly channels: readonly SlackChannel[];
  /** Each HTTP channel's `/slack/events` URL, in the order of `channels`. */
  readonly events: readonly string[];
  readonly warnings: LoggedWarning[];
  close(): Promise<void>;
}

export interface SlackHarnessOptions {
  readonly mode?: "http" | "socket";
  /** How many ingress processes (channels) share the pipeline. */
  readonly ingress?: number;
  readonly users?: Record<string, FakeSlackUser>;
  readonly settings?: () => SlackConfig;
  /** The config both the worker and the ingress read (access, limits, permissions, models); default: DMs open. */
  readonly config?: () => SwitchyardConfig;
  readonly tools?: AnyTool[];
  /** `/stop`'s port, when not the pipeline's own signals. */
  readonly stopTurn?: StopTurn;
  /** More pipeline options (capabilities, a transcriber). */
  readonly pipeline?: Partial<SwitchyardOptions>;
  /** The skill folders the bot reads; default: none. */
  readonly skillFolders?: SkillFolders;
  /** Slack's rate limits on the fake Web API (slack-limits.ts); default: none. */
  readonly rateLimits?: SlackRateLimits;
}

export const SLACK_USERS: Record<string, FakeSlackUser> = {
  U0HUMAN: { name: "human", real_name: "Hugo Human" },
  U0ADMIN: { name: "admin", real_name: "Ada Admin", is_admin: true },
};

/**
 * A SlackChannel as the fake workspace's bot, with no retries: over HTTP
 * (signed with {@link SLACK_SECRET}, on a free port) or over Socket Mode
 * (with {@link SLACK_APP_TOKEN}). `options` override any of it.
 */
export function fakeSlackChannel(
  slack: FakeSlackApi,
  mode: "http" | "socket" = "http",
  options: Partial<SlackChannelOptions> = {},
): SlackChannel {
  return new SlackChannel({
    botToken: FAKE_SLACK.botToken,
    ...(mode === "socket"
      ? { appToken: SLACK_APP_TOKEN }
      : { signingSecret: SLACK_SECRET, port: 0, host: "127.0.0.1" }),
    apiUrl: slack.url,
    botId: FAKE_SLACK.botId,
    botUserId: FAKE_SLACK.botUserId,
    teamId: FAKE_SLACK.teamId,
    retries: 0,
    ...options,
  });
}

export async function startSlackHarness(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
  const mode = options.mode ?? "http";
  const tools = options.tools ?? [lookupTool, bigTool];
  const slack = await startFakeSlackApi({
    users: options.users ?? SLACK_USERS,
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
  });
  const socket =
    mode === "socket"
      ? await startFakeSocketMode(slack, { appToken: SLACK_APP_TOKEN, ackTimeoutMs: 3_000 })
      : undefined;
  const skills = await loadSkills(options.skillFolders ?? { global: [], workspaces: {} });
  const channels = Array.from({ length: options.ingress ?? 1 }, () =>
    fakeSlackChannel(slack, mode, options.settings ? { settings: options.settings } : {}),
  );
  const [first] = channels;
  const pipe = await startPipeline({
    tools,
    outbounds: { slack: (first as SlackChannel).outbound },
    skills,
    ...(options.config ? { config: options.config, model: "fake-model" } : {}),
    ...options.pipeline,
  });
  await pipe.app.worker?.worker.waitUntilReady();
  const warnings: LoggedWarning[] = [];
  const logger = {
    warn: (message: string, fields?: Record<string, unknown>) => {
      warnings.push({ message, ...(fields ? { fields } : {}) });
    },
  };
  for (const channel of channels) {
    await channel.start(
      channelRuntime(pipe, tools, {
        skills,
        logger,
        ...(options.config ? { config: options.config } : {}),
        ...(options.stopTurn ? { stopTurn: options.stopTurn } : {}),
      }),
    );
  }
  return {
    pipe,
    slack,
    socket,
    channels,
    events: channels.map((c) => `http://127.0.0.1:${c.port}/slack/events`),
    warnings,
    async close() {
      for (const channel of channels) await channel.stop();
      await socket?.close();
      await pipe.close();
      await slack.close();
    },
  };
}

/**
 * Call once at the top of a test file: the function it returns starts a
 * harness (as {@link startSlackHarness} does) that is closed after the test.
 *
 * @example
 * const start = useSlackHarness();
 * it("answers", async () => {
 *   const h = await start({ mode: "socket" });
 * });
 */
export function useSlackHarness(): (options?: SlackHarnessOptions) => Promise<SlackHarness> {
  const running: SlackHarness[] = [];
  afterEach(async () => {
    for (const harness of running.splice(0)) await harness.close();
  });
  return async (options) => {
    const harness = await startSlackHarness(options);
    running.push(harness);
    return harness;
  };
}

/** What people see in a thread: the bot's messages in order, each as last edited. */
export function visibleIn(slack: FakeSlackApi, thread: string): string[] {
  return slack.messages.filter((m) => m.thread_ts === thread && m.bot_id).map((m) => m.text);
}

/** What the bot posted in a channel outside threads (a flat DM). */
export function visibleFlat(slack: FakeSlackApi, channel: string): string[] {
  return slack.messages
    .filter((m) => m.channel === channel && !m.thread_ts && m.bot_id)
    .map((m) => m.text);
}

/** Lets anything still in flight land, so a test can assert that nothing more happened. */
export function settle(ms = 500): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
