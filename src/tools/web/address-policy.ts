import ipaddr from "ipaddr.js";

/**
 * Which addresses `fetch_url` may connect to. The model chooses the URL, and
 * the model reads whatever comes back, so without this a prompt-injected page
 * could have the bot read its own admin ports, the office network, or the
 * cloud metadata service that hands out the machine's credentials (SSRF).
 *
 * The check runs on the addresses a name resolves to, right before the
 * connection is made to exactly those addresses (see `guarded-agent.ts`), so
 * a name that resolves to a public address at check time and a private one at
 * connect time (DNS rebinding) gets nowhere.
 */

/** What an address is, as far as reaching it from a bot goes. */
export type AddressKind =
  | "public"
  | "private"
  | "loopback"
  | "link-local"
  | "unique-local"
  | "site-local"
  | "shared"
  | "multicast"
  | "unspecified"
  | "broadcast"
  | "reserved"
  | "metadata"
  | "invalid";

export interface AddressPolicy {
  /** Every {@link RELAXABLE} kind is reachable. For self-hosted setups only: see the README. */
  readonly allowPrivate: boolean;
  /** Host names (lowercase, as the URL parser spells them) that may resolve to a {@link RELAXABLE} kind. */
  readonly allowHosts: ReadonlySet<string>;
}

export type AddressVerdict =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      /** e.g. "10.0.0.1 is a private address". */
      readonly reason: string;
      /** Whether `allow_hosts` or `allow_private` could open it (never for metadata). */
      readonly relaxable: boolean;
    };

/** Public addresses only: the default, and what a bot on the internet should run with. */
export const PUBLIC_ONLY: AddressPolicy = Object.freeze({
  allowPrivate: false,
  allowHosts: new Set<string>(),
});

/**
 * The kinds an operator may open up (`allow_private`, `allow_hosts`): where a
 * self-hosted wiki or dashboard lives. Metadata, multicast, unspecified,
 * broadcast and reserved addresses are never a web page, so they stay refused.
 */
export const RELAXABLE: ReadonlySet<AddressKind> = new Set([
  "private",
  "loopback",
  "link-local",
  "unique-local",
  "site-local",
  "shared",
]);

/**
 * Cloud instance metadata services (AWS, GCP, Azure, Oracle: 169.254.169.254;
 * AWS ECS: 169.254.170.2; AWS IPv6: fd00:ec2::254; Alibaba: 100.100.100.200).
 * They sit inside relaxable ranges, and hand out credentials to whoever asks,
 * so they are refused even when private addresses are allowed.
 */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set(
  ["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"].map((text) =>
    ipaddr.parse(text).toNormalizedString(),
  ),
);

/** Names that reach a metadata service through the platform's own DNS. */
const METADATA_NAMES: ReadonlySet<string> = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
]);

const WORDS: Readonly<Record<Exclude<AddressKind, "public">, string>> = {
  private: "a private address",
  loopback: "a loopback address",
  "link-local": "a link-local address",
  "unique-local": "a unique-local address",
  "site-local": "a site-local address",
  shared: "a carrier-grade NAT address",
  multicast: "a multicast address",
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  reserved: "a reserved address",
  metadata: "a cloud metadata address",
  invalid: "not an IP address",
};

const IPV4_KINDS: Readonly<Record<string, AddressKind>> = {
  unicast: "public",
  private: "private",
  loopback: "loopback",
  linkLocal: "link-local",
  carrierGradeNat: "shared",
  multicast: "multicast",
  unspecified: "unspecified",
  broadcast: "broadcast",
};

const IPV6_KINDS: Readonly<Record<string, AddressKind>> = {
  unicast: "public",
  loopback: "loopback",
  linkLocal: "link-local",
  uniqueLocal: "unique-local",
  deprecatedSiteLocal: "site-local",
  multicast: "multicast",
  unspecified: "unspecified",
};

/**
 * Classifies one IP address (v4 or v6, as DNS or the URL parser writes it).
 * Anything not known to be ordinary public unicast is not "public": a range
 * added to ipaddr.js later is refused until someone decides otherwise.
 *
 * @example
 * classifyAddress("10.1.2.3")           // "private"
 * classifyAddress("::ffff:127.0.0.1")   // "loopback" (IPv4-mapped)
 * classifyAddress("169.254.169.254")    // "metadata"
 * classifyAddress("93.184.215.14")      // "public"
 */
export function classifyAddress(address: string): AddressKind {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return "invalid";
  }
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString())) return "metadata";
  if (parsed.kind() === "ipv4") return IPV4_KINDS[parsed.range()] ?? "reserved";
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded !== undefined) return classifyAddress(embedded.toString());
  const kind = IPV6_KINDS[v6.range()] ?? "reserved";
  // ::a.b.c.d, the long-deprecated IPv4-compatible form, is no ordinary public address.
  if (kind === "public" && v6.parts.slice(0, 6).every((part) => part === 0)) return "reserved";
  return kind;
}

/**
 * The IPv4 address an IPv6 address stands for, where the packet ends up at
 * that IPv4 address: mapped (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d),
 * NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = address.parts;
  const fromParts = (high: number, low: number) =>
    new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (address.range()) {
    case "ipv4Mapped":
      return address.toIPv4Address();
    case "rfc6145":
      return fromParts(p[6] ?? 0, p[7] ?? 0);
    case "rfc6052":
      // The well-known /96 prefix ends in the address; the local-use /48 is site-specific.
      return p[2] === 0 ? fromParts(p[6] ?? 0, p[7] ?? 0) : undefined;
    case "6to4":
      return fromParts(p[1] ?? 0, p[2] ?? 0);
    default:
      return undefined;
  }
}

/**
 * Whether `host` (the URL's host name) may be reached at `address` (one of
 * the addresses it resolved to, or the host itself for an IP literal).
 *
 * @example
 * checkAddress("10.0.0.1", "10.0.0.1", PUBLIC_ONLY)
 * // { allowed: false, reason: "10.0.0.1 is a private address" }
 * checkAddress("127.0.0.1", "public.example", PUBLIC_ONLY)
 * // { allowed: false, reason: "public.example resolves to 127.0.0.1, a loopback address" }
 */
export function checkAddress(address: string, host: string, policy: AddressPolicy): AddressVerdict {
  const kind = classifyAddress(address);
  if (kind === "public") return { allowed: true };
  if (RELAXABLE.has(kind) && (policy.allowPrivate || policy.allowHosts.has(host.toLowerCase()))) {
    return { allowed: true };
  }
  const what = WORDS[kind];
  const shown = spelled(address);
  const reason =
    host === address || host === `[${address}]`
      ? `${shown} is ${what}`
      : `${host} resolves to ${shown}, ${what}`;
  return { allowed: false, reason, relaxable: RELAXABLE.has(kind) };
}

/** `::ffff:7f00:1` says little to a person; `::ffff:7f00:1 (127.0.0.1)` says what it is. */
function spelled(address: string): string {
  try {
    const parsed = ipaddr.parse(address);
    const embedded = parsed.kind() === "ipv6" ? embeddedIPv4(parsed as ipaddr.IPv6) : undefined;
    return embedded === undefined ? address : `${address} (${embedded.toString()})`;
  } catch {
    return address;
  }
}

/** Refuses metadata services by name, before any DNS is asked (belt and braces: their addresses are refused too). */
export function checkHostName(host: string): AddressVerdict {
  const name = host.toLowerCase().replace(/\.$/, "");
  if (METADATA_NAMES.has(name)) {
    return { allowed: false, reason: `${host} is a cloud metadata service`, relaxable: false };
  }
  return { allowed: true };
}

/** The policy for `web.fetch` settings, with host names spelled as the URL parser spells them. */
export function addressPolicy(settings: {
  readonly allowPrivate: boolean;
  readonly allowHosts: readonly string[];
}): AddressPolicy {
  return Object.freeze({
    allowPrivate: settings.allowPrivate,
    allowHosts: new Set(settings.allowHosts.map((host) => host.toLowerCase())),
  });
}
