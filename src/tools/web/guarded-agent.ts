import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import type { Agent } from "undici";
import {
  type AddressPolicy,
  type AddressVerdict,
  checkAddress,
  checkHostName,
} from "./address-policy.ts";
import { FetchError, FetchRefusedError, INTERNAL_HOST_HINT, PUBLIC_ONLY_HINT } from "./errors.ts";
import { undici } from "./undici.ts";

export interface ResolvedAddress {
  readonly address: string;
  /** 4 or 6. */
  readonly family: number;
}

/**
 * Resolves a host name to every address it has. Injected so a test can make
 * `public.example` resolve to 127.0.0.1 without touching the machine's DNS.
 */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** `dns.lookup` with every address, in the order the resolver gives them (what a plain `fetch` would use). */
export const systemLookup: HostLookup = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

/**
 * An undici dispatcher that only ever connects to addresses the policy allows.
 *
 * Checking a URL's host and then letting `fetch` resolve it again would leave
 * a gap: the name can resolve to a public address for the check and to
 * 127.0.0.1 for the connection (DNS rebinding). Here the check *is* the
 * resolution: the socket's `lookup` resolves the name once, refuses the
 * connection if any address is not allowed, and hands exactly the checked
 * addresses to the socket. IP literals skip `lookup` in Node, so the connector
 * checks those itself. Every connection, redirect hops included, passes
 * through here; there is no other way out.
 *
 * A refused connection fails with {@link FetchRefusedError} as the fetch
 * error's `cause`.
 *
 * @example
 * const dispatcher = guardedAgent(PUBLIC_ONLY);
 * await fetch("http://10.0.0.1/", { dispatcher }); // rejects; cause: "refused: 10.0.0.1 is a private address. ..."
 */
export function guardedAgent(policy: AddressPolicy, lookup: HostLookup = systemLookup): Agent {
  const connectLookup: LookupFunction = (hostname, options, callback) => {
    resolveChecked(hostname, policy, lookup).then(
      (addresses) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses;
        const first = wanted[0];
        if (options.all)
          callback(
            null,
            wanted.map(({ address, family }) => ({ address, family })),
          );
        else if (first === undefined) callback(noAddress(hostname), "", 0);
        else callback(null, first.address, first.family);
      },
      (error: Error) => callback(error, "", 0),
    );
  };
  const { Agent, buildConnector } = undici();
  const connector = buildConnector({ lookup: connectLookup });
  return new Agent({
    connect: (options, callback) => {
      const verdict = literalVerdict(options.hostname, policy);
      if (!verdict.allowed) return callback(refusal(verdict), null);
      connector(options, callback);
    },
  });
}

/** Names are checked before DNS is asked; IP literals are checked as they stand. */
function literalVerdict(hostname: string, policy: AddressPolicy): AddressVerdict {
  const named = checkHostName(hostname);
  if (!named.allowed || isIP(hostname) === 0) return named;
  return checkAddress(hostname, hostname, policy);
}

async function resolveChecked(
  hostname: string,
  policy: AddressPolicy,
  lookup: HostLookup,
): Promise<readonly ResolvedAddress[]> {
  const named = literalVerdict(hostname, policy);
  if (!named.allowed) throw refusal(named);
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await lookup(hostname);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FetchError(
      `${hostname} could not be found${code === undefined ? "" : ` (${code})`}. Check the address for typos.`,
    );
  }
  if (addresses.length === 0) throw noAddress(hostname);
  // Every address, not just the first: the socket may try any of them.
  for (const { address } of addresses) {
    const verdict = checkAddress(address, hostname, policy);
    if (!verdict.allowed) throw refusal(verdict);
  }
  return addresses;
}

function refusal(verdict: { reason: string; relaxable: boolean }): FetchRefusedError {
  return new FetchRefusedError(
    verdict.reason,
    verdict.relaxable ? INTERNAL_HOST_HINT : PUBLIC_ONLY_HINT,
  );
}

function noAddress(hostname: string): FetchError {
  return new FetchError(`${hostname} has no address to connect to. Check the address for typos.`);
}
