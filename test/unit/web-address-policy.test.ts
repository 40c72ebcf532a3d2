import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addressPolicy,
  checkAddress,
  classifyAddress,
  PUBLIC_ONLY,
} from "../../src/tools/web/address-policy.ts";

/*
 * The ranges below are written out from the IANA special-purpose registries
 * (RFC 6890 and successors), not taken from ipaddr.js, so the classifier is
 * checked against an independent list.
 */

const toInt = (dotted: string) =>
  dotted.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");

/** Addresses inside `base/bits`. */
const v4In = (base: string, bits: number) =>
  fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => dotted(toInt(base) + offset));

const PRIVATE_V4: ReadonlyArray<readonly [string, number, string]> = [
  ["10.0.0.0", 8, "a private address"],
  ["172.16.0.0", 12, "a private address"],
  ["192.168.0.0", 16, "a private address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "link-local"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["0.0.0.0", 8, "unspecified"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "reserved"],
];

/** Everything that is not ordinary public unicast IPv4. */
const SPECIAL_V4: ReadonlyArray<readonly [string, number]> = [
  ...PRIVATE_V4.map(([base, bits]) => [base, bits] as const),
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.31.196.0", 24],
  ["192.52.193.0", 24],
  ["192.88.99.0", 24],
  ["192.175.48.0", 24],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
];

const isSpecialV4 = (address: string) =>
  SPECIAL_V4.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    const start = toInt(base);
    const n = toInt(address);
    return n >= start && n < start + size;
  });

const privateV4 = fc.oneof(...PRIVATE_V4.map(([base, bits]) => v4In(base, bits)));
const publicV4 = fc
  .integer({ min: 0, max: 2 ** 32 - 1 })
  .map(dotted)
  .filter((address) => !isSpecialV4(address));

const hextets = (count: number) =>
  fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: count, maxLength: count });
const hex = (parts: number[]) => parts.map((part) => part.toString(16)).join(":");

/** IPv6 addresses whose first hextet is `fixed | (random & mask)`. */
const v6In = (fixed: number, mask: number) =>
  fc
    .tuple(fc.integer({ min: 0, max: mask }), hextets(7))
    .map(([low, rest]) => hex([fixed | low, ...rest]));

const privateV6 = fc.oneof(
  v6In(0xfc00, 0x01ff), // unique-local fc00::/7
  v6In(0xfe80, 0x003f), // link-local fe80::/10
  v6In(0xfec0, 0x003f), // site-local fec0::/10
  v6In(0xff00, 0x00ff), // multicast ff00::/8
  fc.constantFrom("::1", "::", "0:0:0:0:0:0:0:1"),
);

/** Global unicast outside every special block (2001::/23, 2002::/16, 2620:4f:8000::/48, 3fff::/20 ...). */
const publicV6 = fc.oneof(v6In(0x2400, 0x01ff), v6In(0x2800, 0x07ff));

/** The IPv6 spellings that reach an IPv4 address. */
const embedding = (v4: string) => {
  const n = toInt(v4);
  const high = (n >>> 16).toString(16);
  const low = (n & 0xffff).toString(16);
  return fc.constantFrom(
    `::ffff:${v4}`,
    `::ffff:${high}:${low}`,
    `::ffff:0:${v4}`,
    `64:ff9b::${v4}`,
    `2002:${high}:${low}::1`,
  );
};

describe("the address classifier", () => {
  it("refuses every private, loopback, link-local, CGNAT, multicast, unspecified and reserved IPv4 address, naming it", () => {
    const named = fc.oneof(
      ...PRIVATE_V4.map(([base, bits, word]) => v4In(base, bits).map((a) => [a, word] as const)),
    );
    fc.assert(
      fc.property(named, ([address, word]) => {
        const verdict = checkAddress(address, address, PUBLIC_ONLY);
        expect(verdict.allowed).toBe(false);
        if (verdict.allowed) return;
        // Metadata services sit inside link-local and CGNAT, and the limited broadcast
        // address 255.255.255.255 inside reserved 240/4: each is named as the narrower block.
        const narrower = address === "255.255.255.255" ? "a broadcast address" : "cloud metadata";
        const expected = new RegExp(
          `^${address.replaceAll(".", "\\.")} is .*(${word}|${narrower})`,
        );
        expect(verdict.reason).toMatch(expected);
      }),
    );
  });

  it("names 255.255.255.255, the top of reserved 240/4, as the broadcast address it is", () => {
    expect(checkAddress("255.255.255.255", "255.255.255.255", PUBLIC_ONLY)).toEqual({
      allowed: false,
      reason: expect.stringMatching(/^255\.255\.255\.255 is a broadcast address/),
      relaxable: false,
    });
  });

  it("refuses the same addresses written as IPv6 (mapped, translated, NAT64, 6to4)", () => {
    fc.assert(
      fc.property(privateV4.chain(embedding), (address) => {
        expect(checkAddress(address, address, PUBLIC_ONLY).allowed).toBe(false);
      }),
    );
  });

  it("refuses every unique-local, link-local, site-local, multicast, loopback and unspecified IPv6 address", () => {
    fc.assert(
      fc.property(privateV6, (address) => {
        expect(checkAddress(address, address, PUBLIC_ONLY).allowed).toBe(false);
      }),
    );
  });

  it("allows public IPv4 and IPv6 addresses, and IPv6 spellings of public IPv4", () => {
    fc.assert(
      fc.property(fc.oneof(publicV4, publicV6, publicV4.chain(embedding)), (address) => {
        expect(classifyAddress(address)).toBe("public");
        expect(checkAddress(address, "example.com", PUBLIC_ONLY)).toEqual({ allowed: true });
      }),
    );
  });

  it("lets allow_private open private ranges, but never metadata, multicast or unspecified", () => {
    const open = addressPolicy({ allowPrivate: true, allowHosts: [] });
    fc.assert(
      fc.property(fc.oneof(...PRIVATE_V4.slice(0, 6).map(([b, n]) => v4In(b, n))), (address) => {
        fc.pre(
          address !== "169.254.169.254" &&
            address !== "169.254.170.2" &&
            address !== "100.100.100.200",
        );
        expect(checkAddress(address, address, open)).toEqual({ allowed: true });
      }),
    );
    for (const never of [
      "169.254.169.254",
      "fd00:ec2::254",
      "::ffff:169.254.169.254",
      "100.100.100.200",
      "224.0.0.1",
      "0.0.0.0",
      "::",
      "255.255.255.255",
    ]) {
      expect(checkAddress(never, never, open).allowed).toBe(false);
    }
  });

  it("opens private addresses for the hosts on allow_hosts only", () => {
    const policy = addressPolicy({ allowPrivate: false, allowHosts: ["Wiki.Internal"] });
    fc.assert(
      fc.property(v4In("10.0.0.0", 8), (address) => {
        expect(checkAddress(address, "wiki.internal", policy)).toEqual({ allowed: true });
        expect(checkAddress(address, "other.internal", policy)).toEqual({
          allowed: false,
          reason: `other.internal resolves to ${address}, a private address`,
          relaxable: true,
        });
      }),
    );
    expect(checkAddress("169.254.169.254", "wiki.internal", policy)).toEqual({
      allowed: false,
      reason: "wiki.internal resolves to 169.254.169.254, a cloud metadata address",
      relaxable: false,
    });
  });

  it("never throws, and refuses anything that is not an IP address", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const kind = classifyAddress(text);
        if (kind === "invalid") {
          expect(
            checkAddress(text, text, addressPolicy({ allowPrivate: true, allowHosts: [] })).allowed,
          ).toBe(false);
        }
      }),
    );
    expect(checkAddress("example.com", "example.com", PUBLIC_ONLY)).toEqual({
      allowed: false,
      reason: "example.com is not an IP address",
      relaxable: false,
    });
  });
});
