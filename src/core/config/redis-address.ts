/**
 * `host:port` as operators write Redis nodes and sentinels: `10.0.0.5:6379`,
 * `cache-1.internal:7000`, `[2001:db8::1]:6379`. One parser for the config
 * file and the environment (`REDIS_CLUSTER_NODES`, `REDIS_SENTINELS`).
 */

export interface RedisAddress {
  readonly host: string;
  readonly port: number;
}

/** Why a `host:port` could not be read; the message shows a correct example. */
export class RedisAddressError extends Error {
  override readonly name = "RedisAddressError";
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(
      `${JSON.stringify(input.length > 80 ? `${input.slice(0, 80)}...` : input)} is not a Redis address: ${reason}. Write host:port, e.g. 10.0.0.5:6379 or [2001:db8::1]:6379.`,
    );
  }
}

const HOST = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;

/**
 * @example
 * parseRedisAddress("cache-1:7000") // { host: "cache-1", port: 7000 }
 * parseRedisAddress("[::1]:6379")   // { host: "::1", port: 6379 }
 */
export function parseRedisAddress(input: string): RedisAddress {
  const text = input.trim();
  let host: string;
  let portText: string;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close === -1) throw new RedisAddressError(input, "the [ of an IPv6 address is not closed");
    host = text.slice(1, close);
    if (!IPV6.test(host) || !host.includes(":")) {
      throw new RedisAddressError(input, `${JSON.stringify(host)} is not an IPv6 address`);
    }
    if (text[close + 1] !== ":") throw new RedisAddressError(input, "the port is missing");
    portText = text.slice(close + 2);
  } else {
    const colon = text.lastIndexOf(":");
    if (colon === -1) throw new RedisAddressError(input, "the port is missing");
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    if (host.includes(":")) {
      throw new RedisAddressError(input, "an IPv6 address needs brackets around it");
    }
    if (!HOST.test(host)) {
      throw new RedisAddressError(
        input,
        host === "" ? "the host is missing" : `${JSON.stringify(host)} is not a host name`,
      );
    }
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65_535) {
    throw new RedisAddressError(
      input,
      portText === ""
        ? "the port is missing"
        : `${JSON.stringify(portText)} is not a port (1-65535)`,
    );
  }
  return { host, port: Number(portText) };
}

/**
 * A comma-separated list, as the environment holds it; blanks around commas
 * are ignored, an empty list is an error (a node list with no node).
 */
export function parseRedisAddressList(input: string): RedisAddress[] {
  const parts = input
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new RedisAddressError(input, "the list names no node");
  return parts.map(parseRedisAddress);
}

/** Back to `host:port` (IPv6 in brackets): the form natMap keys and logs use. */
export function formatRedisAddress(address: RedisAddress): string {
  return address.host.includes(":")
    ? `[${address.host}]:${address.port}`
    : `${address.host}:${address.port}`;
}
