import type { IncomingMessage, ServerResponse } from "node:http";
import { HTTPModuleFunctions, type HTTPReceiver, isValidSlackRequest } from "@slack/bolt";
import type { LoggerPort } from "../../core/logger.ts";

/** Where Slack posts events, commands and interactions. */
export const EVENTS_PATH = "/slack/events";

/**
 * How far a request's timestamp may be from this host's clock, either way.
 * Slack's rule ("Verifying requests from Slack"), as python-slack-sdk's
 * SignatureVerifier applies it: `abs(now - timestamp) > 60 * 5` is refused.
 * Bolt for JS refuses only the stale side.
 */
export const MAX_CLOCK_SKEW_S = 5 * 60;

/**
 * Looks at a request to `/slack/events` before Bolt's HTTPReceiver does,
 * for what Bolt lets through: a signed request dated more than five minutes
 * ahead (a replay kept for later, or this host's clock running late) is
 * refused with 401, and a signed body that parses to `null` (which Bolt's
 * receiver reads a field of outside its try, a rejection that would end the
 * process) is acknowledged and dropped. Everything else, signature checks
 * included, stays Bolt's: the body is buffered where Bolt looks for it
 * (`rawBody`), so Bolt verifies the same bytes again.
 */
export function screenRequests(
  receiver: HTTPReceiver,
  options: { readonly signingSecret: string; readonly logger: LoggerPort },
): void {
  const bolts = receiver.requestListener;
  receiver.requestListener = (req, res) => {
    const path = new URL(req.url ?? "/", "http://slack").pathname;
    if (req.method !== "POST" || path !== EVENTS_PATH) return bolts(req, res);
    screen(req, res, options).then(
      (pass) => {
        if (pass) bolts(req, res);
      },
      () => answer(res, 400),
    );
  };
}

async function screen(
  req: IncomingMessage,
  res: ServerResponse,
  options: { readonly signingSecret: string; readonly logger: LoggerPort },
): Promise<boolean> {
  let buffered: Awaited<ReturnType<typeof HTTPModuleFunctions.bufferIncomingMessage>>;
  try {
    buffered = await HTTPModuleFunctions.bufferIncomingMessage(
      req,
      HTTPModuleFunctions.defaultBodyLimit,
    );
  } catch (error) {
    const tooLarge = HTTPModuleFunctions.isRawBodyError(error) && error.statusCode === 413;
    answer(res, tooLarge ? 413 : 400);
    return false;
  }
  const timestamp = Number(req.headers["x-slack-request-timestamp"]);
  const signature = req.headers["x-slack-signature"];
  if (!Number.isFinite(timestamp) || typeof signature !== "string") return true; // Bolt's 401
  // The signature alone: dated "now" at its own timestamp, so staleness is not the question here.
  const signed = isValidSlackRequest({
    signingSecret: options.signingSecret,
    body: buffered.rawBody.toString(),
    headers: { "x-slack-signature": signature, "x-slack-request-timestamp": timestamp },
    nowMilliseconds: timestamp * 1000,
  });
  const ahead = timestamp - Date.now() / 1000;
  if (ahead > MAX_CLOCK_SKEW_S) {
    if (signed) {
      options.logger.warn(
        "refused a signed Slack request dated in the future; if every request is refused, this host's clock is behind (check NTP)",
        { aheadSeconds: Math.round(ahead) },
      );
    }
    answer(res, 401);
    return false;
  }
  if (signed && parsesToNull(buffered)) {
    options.logger.warn("acknowledged and dropped a signed Slack request whose body is null");
    answer(res, 200);
    return false;
  }
  return true;
}

function parsesToNull(
  req: Parameters<typeof HTTPModuleFunctions.parseHTTPRequestBody>[0],
): boolean {
  try {
    return HTTPModuleFunctions.parseHTTPRequestBody(req) === null;
  } catch {
    return false; // Bolt answers a body it cannot parse with 400.
  }
}

function answer(res: ServerResponse, status: number): void {
  if (res.headersSent) return;
  res.writeHead(status);
  res.end();
}
