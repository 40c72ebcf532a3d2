import { type ChannelDefinition, defineChannel, type Outbound } from "../../src/index.ts";

/** An outbound that posts nowhere: what a channel under test hands the worker. */
export const quietOutbound: Outbound = {
  maxLength: 1_000,
  canEdit: false,
  post: async () => "1",
  edit: async () => {},
  typing: async () => {},
};

/** A channel made with defineChannel that logs what it did, in order. */
export function recordedChannel(overrides: Partial<ChannelDefinition<{ name: string }>> = {}) {
  const log: string[] = [];
  const factory = defineChannel<{ name: string }>({
    platform: "webhook",
    outbound: ({ name }) => {
      log.push(`outbound ${name}`);
      return quietOutbound;
    },
    ingress: ({ settings }) => ({
      start: async () => void log.push(`start ${settings.name}`),
      stop: async () => void log.push(`stop ${settings.name}`),
    }),
    ...overrides,
  });
  return { factory, log };
}
