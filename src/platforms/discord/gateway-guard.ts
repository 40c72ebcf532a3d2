import type { Client } from "discord.js";

/**
 * discord.js turns every gateway DISPATCH into its structures synchronously,
 * inside the WebSocket's message handler: a payload it cannot parse (the
 * Discord documentation's own slash-command example, which has no
 * `entitlements`, makes `new ChatInputCommandInteraction` throw) throws out
 * of `WebSocketManager#handlePacket`, up through @discordjs/ws's async
 * `onMessage`, and ends the process as an unhandled rejection.
 *
 * The guard wraps `handlePacket` on the client's own WebSocketManager (not a
 * fork: the instance's method, which discord.js also calls for the packets it
 * queued before READY) so that one bad event is dropped, reported, and the
 * gateway session goes on with the next one. Payloads are repaired first
 * where Discord documents a field as optional or added it later and
 * discord.js requires it, so such an interaction is still answered.
 *
 * `handlePacket` is not public API: the guard checks that it exists and
 * refuses to start otherwise, so a discord.js upgrade that renames it fails
 * at start, not at the first odd payload. Written against discord.js 14.28.
 */

/** A gateway DISPATCH as discord.js hands it to its packet handlers. */
export interface GatewayPacket {
  readonly t?: string | null;
  d?: unknown;
  readonly s?: number | null;
  readonly op?: number;
}

/** An event discord.js could not handle: which one, and why. */
export interface PacketFailure {
  readonly event: string;
  readonly error: unknown;
  readonly packet: GatewayPacket;
}

/** discord.js no longer has what the guard wraps; the message says what to do. */
export class DiscordGuardError extends Error {
  override readonly name = "DiscordGuardError";
}

type HandlePacket = (packet?: GatewayPacket, shard?: unknown) => boolean;

/**
 * Makes `client` survive any DISPATCH payload: the event is repaired if it
 * can be, handled, and if discord.js still throws, dropped and handed to
 * `onFailure` (which must not throw; if it does, that is swallowed too).
 *
 * @example
 * const client = new Client({ intents });
 * guardPacketHandling(client, ({ event, error }) => log.warn("dropped", { event, error }));
 */
export function guardPacketHandling(
  client: Client,
  onFailure: (failure: PacketFailure) => void,
): void {
  const ws = client.ws as unknown as { handlePacket?: HandlePacket };
  const original = ws.handlePacket;
  if (typeof original !== "function") {
    throw new DiscordGuardError(
      "discord.js's WebSocketManager has no handlePacket method, which Switchyard wraps so that a gateway event discord.js cannot parse does not end the process. Install the discord.js version in package-lock.json (npm ci), or update src/platforms/discord/gateway-guard.ts for this one.",
    );
  }
  ws.handlePacket = function guardedHandlePacket(this: unknown, packet, shard) {
    try {
      if (packet) repairPacket(packet, client);
      return original.call(this, packet, shard);
    } catch (error) {
      try {
        onFailure({ event: String(packet?.t ?? "unknown"), error, packet: packet ?? {} });
      } catch {
        // Reporting must never be what ends the gateway session.
      }
      return true;
    }
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Fills in, in place, what discord.js 14 requires of an INTERACTION_CREATE
 * and Discord's older or minimal payloads leave out: `entitlements` (added
 * in 2023), `authorizing_integration_owners` (2024), the partial `channel`
 * object beside `channel_id` (2022; discord.js reads the channel id from it
 * only), and a command's `data.type`, which Discord documents as defaulting
 * to 1 (a slash command) and older payloads omit (discord.js drops the
 * interaction without it). The channel's type is the cached channel's, else
 * a guild text channel or a DM by whether a guild is named. Without
 * `application_id` (the docs' examples) the reply would go to
 * `/webhooks/undefined/…`; an interaction on the bot's gateway session is for
 * the bot's application.
 */
export function repairPacket(packet: GatewayPacket, client: Client): void {
  if (packet.t !== "INTERACTION_CREATE" || !isObject(packet.d)) return;
  const d = packet.d;
  if (!Array.isArray(d.entitlements)) d.entitlements = [];
  if (!isObject(d.authorizing_integration_owners)) d.authorizing_integration_owners = {};
  if (typeof d.application_id !== "string" && client.application) {
    d.application_id = client.application.id;
  }
  const command = d.type === 2 || d.type === 4;
  if (command && isObject(d.data) && d.data.type === undefined) d.data.type = 1;
  if (!isObject(d.channel) && typeof d.channel_id === "string") {
    const guildId = typeof d.guild_id === "string" ? d.guild_id : undefined;
    const cached = client.channels.cache.get(d.channel_id);
    d.channel = {
      id: d.channel_id,
      type: cached?.type ?? (guildId ? 0 : 1),
      ...(guildId ? { guild_id: guildId } : {}),
    };
  }
}
