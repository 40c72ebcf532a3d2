import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type HookHeaders,
  MAX_AGE_MS,
  type SignatureScheme,
  signGitHub,
  signHook,
  verifyHookSignature,
} from "../../src/core/hooks/index.ts";

const SECRET = "hook-secret-4f1c";
const NOW = 1_767_225_600_000;
const SECONDS = NOW / 1000;
const BODY = Buffer.from('{"summary":"3 tests failed"}');

function switchyardHeaders(
  body: Uint8Array,
  overrides: Record<string, string | undefined> = {},
): HookHeaders {
  return {
    "x-switchyard-timestamp": String(SECONDS),
    "x-switchyard-delivery": "build-812",
    "x-switchyard-signature": signHook(SECRET, SECONDS, "build-812", body),
    ...overrides,
  };
}

const githubHeaders = (body: Uint8Array): HookHeaders => ({
  "x-hub-signature-256": signGitHub(SECRET, body),
  "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
});

const verify = (
  scheme: SignatureScheme,
  headers: HookHeaders,
  body: Uint8Array = BODY,
  now = NOW,
) => verifyHookSignature(scheme, SECRET, headers, body, now);

describe("a hook call's signature", () => {
  it("verifies a switchyard call signed over timestamp, delivery and body", () => {
    expect(verify("switchyard", switchyardHeaders(BODY))).toEqual({
      kind: "verified",
      delivery: "build-812",
      timed: true,
    });
  });

  it("matches what openssl computes (the documented curl example)", () => {
    // printf '%s' "1767225600.build-812.{\"summary\":\"3 tests failed\"}" | openssl dgst -sha256 -hmac hook-secret-4f1c
    expect(signHook(SECRET, SECONDS, "build-812", BODY)).toBe(
      "sha256=dad92279828ae945451fabc386b1b5817081df5ca9550062a660b4113aae52e8",
    );
  });

  it("refuses a call with no signature, or the wrong secret, as 401", () => {
    const unsigned = verify(
      "switchyard",
      switchyardHeaders(BODY, { "x-switchyard-signature": undefined }),
    );
    expect(unsigned).toMatchObject({ kind: "refused", status: 401 });
    const wrong = verifyHookSignature("switchyard", "another", switchyardHeaders(BODY), BODY, NOW);
    expect(wrong).toMatchObject({
      kind: "refused",
      status: 401,
      problem: expect.stringContaining("does not match"),
    });
  });

  it("refuses a call signed more than 5 minutes ago, or more than a minute ahead", () => {
    expect(
      verify("switchyard", switchyardHeaders(BODY), BODY, NOW + MAX_AGE_MS - 1000),
    ).toMatchObject({ kind: "verified" });
    const stale = verify("switchyard", switchyardHeaders(BODY), BODY, NOW + MAX_AGE_MS + 1000);
    expect(stale).toMatchObject({
      kind: "refused",
      status: 401,
      problem: expect.stringContaining("301 s ago"),
    });
    const ahead = verify("switchyard", switchyardHeaders(BODY), BODY, NOW - 120_000);
    expect(ahead).toMatchObject({
      kind: "refused",
      status: 401,
      problem: expect.stringContaining("in the future"),
    });
  });

  it("refuses a call whose delivery id was changed after signing (a replay under a new id)", () => {
    const moved = verify(
      "switchyard",
      switchyardHeaders(BODY, { "x-switchyard-delivery": "build-813" }),
    );
    expect(moved).toMatchObject({ kind: "refused", status: 401 });
  });

  it("asks for a timestamp and a delivery id it can use, as 400", () => {
    expect(
      verify("switchyard", switchyardHeaders(BODY, { "x-switchyard-timestamp": undefined })),
    ).toMatchObject({ status: 400, fix: expect.stringContaining("date +%s") });
    expect(
      verify("switchyard", switchyardHeaders(BODY, { "x-switchyard-timestamp": "yesterday" })),
    ).toMatchObject({ status: 400 });
    expect(
      verify("switchyard", switchyardHeaders(BODY, { "x-switchyard-delivery": "a b/c" })),
    ).toMatchObject({ status: 400 });
  });

  it("verifies GitHub's X-Hub-Signature-256 with X-GitHub-Delivery, untimed", () => {
    expect(verify("github", githubHeaders(BODY))).toEqual({
      kind: "verified",
      delivery: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
      timed: false,
    });
    expect(
      verify("github", { ...githubHeaders(BODY), "x-hub-signature-256": undefined }),
    ).toMatchObject({ status: 401 });
  });

  it("verifies GitLab's X-Gitlab-Token and takes its Idempotency-Key", () => {
    const headers = { "x-gitlab-token": SECRET, "idempotency-key": "f6a1-22" };
    expect(verify("gitlab", headers)).toEqual({
      kind: "verified",
      delivery: "f6a1-22",
      timed: false,
    });
    expect(verify("gitlab", { ...headers, "x-gitlab-token": "guess" })).toMatchObject({
      status: 401,
    });
    expect(
      verify("gitlab", { "x-gitlab-token": SECRET, "x-gitlab-event-uuid": "u-1" }),
    ).toMatchObject({ delivery: "u-1" });
  });

  it("refuses any one byte changed in the body or the signature, under both HMAC schemes", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        fc.boolean(),
        (body, where, flip, inSignature) => {
          for (const scheme of ["switchyard", "github"] as const) {
            const headers = scheme === "switchyard" ? switchyardHeaders(body) : githubHeaders(body);
            expect(verify(scheme, headers, body).kind).toBe("verified");
            const name = scheme === "switchyard" ? "x-switchyard-signature" : "x-hub-signature-256";
            if (inSignature) {
              const signature = Buffer.from(headers[name] as string);
              const at = where % signature.length;
              signature[at] = (signature[at] as number) ^ flip;
              expect(
                verify(scheme, { ...headers, [name]: signature.toString("latin1") }, body).kind,
              ).toBe("refused");
            } else {
              const changed = Buffer.from(body);
              const at = where % changed.length;
              changed[at] = (changed[at] as number) ^ flip;
              expect(verify(scheme, headers, changed).kind).toBe("refused");
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses a call whose timestamp was changed after signing, even to another time inside the window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -240, max: 50 }).filter((delta) => delta !== 0),
        (delta) => {
          const moved = switchyardHeaders(BODY, {
            "x-switchyard-timestamp": String(SECONDS + delta),
          });
          expect(verify("switchyard", moved)).toMatchObject({ kind: "refused", status: 401 });
        },
      ),
      { numRuns: 100 },
    );
  });
});
