import type { ConversationAddress } from "../core/conversation.ts";
import { IngressGate } from "../ingress/access/gate.ts";
import { type Channel, type ChannelRuntime, removedQueue } from "../ingress/channel.ts";
import { type Logger, loggerPort } from "../observability/logger.ts";
import type { Metrics } from "../observability/metrics.ts";
import { PLATFORM_VARIABLES } from "../platforms/env-platforms.ts";
import { consoleChannel } from "../platforms/terminal/console-channel.ts";
import type { Switchyard } from "./app.ts";
import { StartOptionError } from "./errors.ts";
import type { BotRole, ConfigSource } from "./options.ts";
import type { SwitchyardPlugin } from "./plugins.ts";
import type { SkillLibrary } from "./skill-folders.ts";

/**
 * The channels a bot runs: those given, then the plugins'. With none given
 * and none from plugins, the console when the process runs everything, and
 * none for a worker. An ingress with no channel is a {@link StartOptionError}:
 * the console would end with its (empty) input, and a supervisor would
 * restart it forever. Two channels of one platform are one too: their
 * outbounds would share one key.
 */
export function channelsFor(
  given: readonly Channel[] | undefined,
  plugins: readonly SwitchyardPlugin[],
  role: BotRole,
): Channel[] {
  const channels = [...(given ?? []), ...plugins.flatMap((plugin) => plugin.channels ?? [])];
  if (role === "ingress" && channels.length === 0) {
    throw new StartOptionError(
      `An ingress runs the platforms' channels, and none is configured. Set ${PLATFORM_VARIABLES} (switchyard start), pass channels: to createBot, or load a plugin that brings a channel; the console channel runs with role all.`,
    );
  }
  if (given === undefined && channels.length === 0 && role === "all") {
    channels.push(consoleChannel());
  }
  const seen = new Set<string>();
  for (const channel of channels) {
    if (seen.has(channel.platform)) {
      throw new StartOptionError(
        `Two channels are both "${channel.platform}". Each platform runs once per bot: remove one, or give your own channel a platform name of its own.`,
      );
    }
    seen.add(channel.platform);
  }
  return channels;
}

/**
 * Starts each channel's ingress, in order, on the running pipeline; a worker
 * starts none and only readies the outbounds that need it.
 */
export async function startChannels(
  app: Switchyard,
  channels: readonly Channel[],
  bot: {
    readonly role: BotRole;
    readonly skills: SkillLibrary;
    readonly config: ConfigSource;
    readonly logger: Logger;
    /** Counts the messages the ingress gate refuses. */
    readonly metrics: Metrics;
  },
): Promise<void> {
  const { skills, config, logger } = bot;
  const port = loggerPort(logger);
  if (bot.role === "worker") {
    // Workers only post: each channel readies its outbound without taking events.
    for (const channel of channels) {
      channel.prepareWorker?.({ redis: app.redis, prefix: app.store.keys.prefix, logger: port });
    }
    logger.info("worker started; waiting for turns");
    return;
  }

  const gate = new IngressGate({
    store: app.store,
    config: () => config.current,
    refused: (reason) => bot.metrics.countRefused(reason),
  });
  const stopTurn = (address: ConversationAddress) => app.stopTurn(address);
  for (const channel of channels) {
    await channel.start(
      withRemovedQueue({
        ungatedQueue: app.queue,
        idle: (address) => app.queue.idle(address),
        redis: app.redis,
        sources: app.sources,
        permissions: () => config.current.permissions,
        skills,
        gate,
        logger: port,
        stopTurn,
        approvals: app.approvals,
        feedback: app.feedback,
        queueBehaviour: app.queueBehaviour,
        schedules: app.scheduleDesk,
      }),
    );
    logger.info({ platform: channel.platform }, "channel started");
  }
  logger.info("channels started");
}

/**
 * The runtime with the old `queue` as a property that throws, naming
 * `takeMessage`: a channel written before the rename fails at its first
 * message instead of letting everyone past the gate. Not enumerable, so
 * spreading the runtime (`{ ...runtime }`) does not trip it.
 */
function withRemovedQueue(runtime: ChannelRuntime): ChannelRuntime {
  return Object.defineProperty(runtime, "queue", { get: removedQueue, enumerable: false });
}
