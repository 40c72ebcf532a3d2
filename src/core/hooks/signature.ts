import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * How a hook's sender proves it holds the hook's secret:
 *
 * - `switchyard` (the default): `X-Switchyard-Signature: sha256=<hex>`, the
 *   HMAC-SHA256 with the secret of `<timestamp>.<delivery>.<body>`, where
 *   `<timestamp>` is `X-Switchyard-Timestamp` (Unix seconds), `<delivery>`
 *   is `X-Switchyard-Delivery` (the sender's id for this call) and
 *   `<body>` the raw bytes. Signing the delivery id too means a captured
 *   call cannot be sent again under a new id to get past the replay check.
 *   A timestamp more than 5 minutes old, or more than a minute ahead, is
 *   refused.
 * - `github`: `X-Hub-Signature-256: sha256=<hex>` over the raw body, with
 *   `X-GitHub-Delivery` as the id. GitHub sends no timestamp, so a replay
 *   is caught by its delivery id and by its body.
 * - `gitlab`: `X-Gitlab-Token` equal to the secret (GitLab signs nothing),
 *   with `Idempotency-Key` or `X-Gitlab-Event-UUID` as the id.
 */
export type SignatureScheme = "switchyard" | "github" | "gitlab";

export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = ["switchyard", "github", "gitlab"];

/** The headers of the `switchyard` scheme, lower-case as Node gives them. */
export const HOOK_HEADERS = {
  timestamp: "x-switchyard-timestamp",
  delivery: "x-switchyard-delivery",
  signature: "x-switchyard-signature",
} as const;

/** How old a `switchyard` timestamp may be. */
export const MAX_AGE_MS = 5 * 60_000;
/** How far ahead of this clock a timestamp may be: clocks differ a little, never minutes. */
export const MAX_AHEAD_MS = 60_000;

/** A delivery id: what becomes part of the event id and a Redis key. */
export const DELIVERY_ID = /^[A-Za-z0-9._-]{1,128}$/;

export type HookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** What the check said: the call's delivery id, or why it is refused and how to send it right. */
export type SignatureVerdict =
  | {
      readonly kind: "verified";
      readonly delivery: string;
      /**
       * Whether the scheme covers the call's time: when not, a replay is
       * caught by its body too, since a captured call can be sent with any
       * delivery id.
       */
      readonly timed: boolean;
    }
  | {
      readonly kind: "refused";
      /** 400: the call lacks what the scheme needs; 401: it does not prove the secret, or is stale. */
      readonly status: 400 | 401;
      readonly problem: string;
      readonly fix: string;
    };

/**
 * Checks a call against its hook's secret under `scheme`, comparing in
 * constant time. `now` is handed in (ms since the epoch).
 *
 * @example
 * const verdict = verifyHookSignature("switchyard", secret, req.headers, body, Date.now());
 * if (verdict.kind === "refused") return answer(verdict.status, verdict);
 */
export function verifyHookSignature(
  scheme: SignatureScheme,
  secret: string,
  headers: HookHeaders,
  body: Uint8Array,
  now: number,
): SignatureVerdict {
  switch (scheme) {
    case "switchyard":
      return verifySwitchyard(secret, headers, body, now);
    case "github":
      return verifyGitHub(secret, headers, body);
    case "gitlab":
      return verifyGitLab(secret, headers);
  }
}

/**
 * The `X-Switchyard-Signature` value for a call: what a sender computes.
 *
 * @example
 * signHook(secret, 1767225600, "build-812", Buffer.from('{"summary":"3 tests failed"}'));
 * // "sha256=…"
 */
export function signHook(
  secret: string,
  timestamp: number | string,
  delivery: string,
  body: Uint8Array,
): string {
  const mac = createHmac("sha256", secret);
  mac.update(`${timestamp}.${delivery}.`);
  mac.update(body);
  return `sha256=${mac.digest("hex")}`;
}

/** GitHub's `X-Hub-Signature-256` for a body. */
export function signGitHub(secret: string, body: Uint8Array): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** The SHA-256 of a body, hex: its replay key when the scheme signs no time. */
export function bodyDigest(body: Uint8Array): string {
  return createHash("sha256").update(body).digest("hex");
}

function verifySwitchyard(
  secret: string,
  headers: HookHeaders,
  body: Uint8Array,
  now: number,
): SignatureVerdict {
  const timestamp = header(headers, HOOK_HEADERS.timestamp);
  const delivery = header(headers, HOOK_HEADERS.delivery);
  const signature = header(headers, HOOK_HEADERS.signature);
  if (signature === undefined) {
    return refused(
      401,
      "the call has no X-Switchyard-Signature header",
      "sign it: X-Switchyard-Signature: sha256=<hex HMAC-SHA256 of <timestamp>.<delivery>.<body> with the hook's secret>",
    );
  }
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) {
    return refused(
      400,
      timestamp === undefined
        ? "the call has no X-Switchyard-Timestamp header"
        : `X-Switchyard-Timestamp ${JSON.stringify(timestamp.slice(0, 40))} is not a time`,
      "send X-Switchyard-Timestamp: the Unix time in seconds when you signed the call (date +%s)",
    );
  }
  const checkedDelivery = deliveryOf(delivery, "X-Switchyard-Delivery");
  if (checkedDelivery.kind === "refused") return checkedDelivery;
  if (!safeEqual(signature, signHook(secret, timestamp, checkedDelivery.delivery, body))) {
    return refused(
      401,
      "the signature does not match the body",
      "sign <timestamp>.<delivery>.<body> (the exact bytes sent) with HMAC-SHA256 and the hook's secret, and send it as X-Switchyard-Signature: sha256=<hex>",
    );
  }
  const at = Number(timestamp) * 1000;
  if (now - at > MAX_AGE_MS) {
    return refused(
      401,
      `the call was signed ${Math.round((now - at) / 1000)} s ago, more than ${MAX_AGE_MS / 60_000} minutes`,
      "sign each call when you send it, with the current time; check the sender's clock",
    );
  }
  if (at - now > MAX_AHEAD_MS) {
    return refused(
      401,
      `the call's timestamp is ${Math.round((at - now) / 1000)} s in the future`,
      "sign with the current Unix time in seconds; check the sender's clock",
    );
  }
  return { kind: "verified", delivery: checkedDelivery.delivery, timed: true };
}

function verifyGitHub(secret: string, headers: HookHeaders, body: Uint8Array): SignatureVerdict {
  const signature = header(headers, "x-hub-signature-256");
  if (signature === undefined) {
    return refused(
      401,
      "the call has no X-Hub-Signature-256 header",
      "set the webhook's secret in GitHub (Settings → Webhooks) to the hook's secret",
    );
  }
  const delivery = deliveryOf(header(headers, "x-github-delivery"), "X-GitHub-Delivery");
  if (delivery.kind === "refused") return delivery;
  if (!safeEqual(signature, signGitHub(secret, body))) {
    return refused(
      401,
      "X-Hub-Signature-256 does not match the body",
      "give the GitHub webhook the same secret as the hook, and Content type application/json",
    );
  }
  return { kind: "verified", delivery: delivery.delivery, timed: false };
}

function verifyGitLab(secret: string, headers: HookHeaders): SignatureVerdict {
  const token = header(headers, "x-gitlab-token");
  if (token === undefined || !safeEqual(token, secret)) {
    return refused(
      401,
      token === undefined ? "the call has no X-Gitlab-Token header" : "X-Gitlab-Token is wrong",
      "set the webhook's Secret token in GitLab (Settings → Webhooks) to the hook's secret",
    );
  }
  const id = header(headers, "idempotency-key") ?? header(headers, "x-gitlab-event-uuid");
  const delivery = deliveryOf(id, "Idempotency-Key or X-Gitlab-Event-UUID");
  if (delivery.kind === "refused") return delivery;
  return { kind: "verified", delivery: delivery.delivery, timed: false };
}

function deliveryOf(
  value: string | undefined,
  name: string,
): { kind: "ok"; delivery: string } | Extract<SignatureVerdict, { kind: "refused" }> {
  if (value !== undefined && DELIVERY_ID.test(value)) return { kind: "ok", delivery: value };
  return refused(
    400,
    value === undefined
      ? `the call has no ${name} header`
      : `${name} ${JSON.stringify(value.slice(0, 40))} is not a delivery id`,
    `send ${name}: an id of your own for this call, 1 to 128 letters, digits, ".", "_" and "-", the same when you retry it`,
  );
}

/** One header's value: the first when sent twice. */
function header(headers: HookHeaders, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" ? first.trim() : undefined;
}

/** Equal strings, compared in time that does not depend on where they differ. */
function safeEqual(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b) && given === expected;
}

function refused(
  status: 400 | 401,
  problem: string,
  fix: string,
): Extract<SignatureVerdict, { kind: "refused" }> {
  return { kind: "refused", status, problem, fix };
}
