import type { Dispatcher } from "undici";
import type { FileLocation } from "../../ports/file-source.ts";
import { readCapped } from "../web/capped-body.ts";
import { FetchRefusedError } from "../web/errors.ts";
import { plainAgent, undici } from "../web/undici.ts";

/** How one download may go: its byte cap, its time cap, and the guard for URLs off the platform. */
export interface DownloadLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  /** The SSRF guard's dispatcher: every URL that is not on the platform's own API host goes through it. */
  readonly guard: Dispatcher;
  readonly signal: AbortSignal;
}

export type Downloaded =
  | { readonly ok: true; readonly bytes: Uint8Array; readonly contentType?: string }
  | { readonly ok: false; readonly tooBig: boolean; readonly problem: string };

/**
 * The file's bytes, at most `maxBytes` of them, within `timeoutMs`; never
 * throws for what a server does. A body past the cap is cut off and reported
 * too big (nothing half-read reaches the model). Problems name the host, never
 * the URL: a Telegram file URL carries the bot token.
 */
export async function download(
  location: FileLocation,
  limits: DownloadLimits,
): Promise<Downloaded> {
  if (location.kind === "bytes") {
    return location.bytes.byteLength > limits.maxBytes
      ? { ok: false, tooBig: true, problem: "it is over the size cap" }
      : { ok: true, bytes: location.bytes };
  }
  const host = hostOf(location.url);
  const signal = AbortSignal.any([limits.signal, AbortSignal.timeout(limits.timeoutMs)]);
  try {
    const response = await undici().fetch(location.url, {
      ...(location.headers ? { headers: { ...location.headers } } : {}),
      signal,
      // A redirect could leave the platform's host with its token; follow none.
      redirect: location.platformHost ? "manual" : "follow",
      dispatcher: location.platformHost ? plainAgent() : limits.guard,
    });
    if (response.status >= 300 && response.status < 400) {
      const next = response.headers.get("location");
      await response.body?.cancel().catch(() => {});
      if (!next)
        return { ok: false, tooBig: false, problem: `${host} answered ${response.status}` };
      // Off the platform's host, without its headers, and through the guard.
      return download(
        { kind: "url", url: new URL(next, location.url).href, platformHost: false },
        limits,
      );
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      return { ok: false, tooBig: false, problem: `${host} answered HTTP ${response.status}` };
    }
    const declared = Number(response.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      await response.body?.cancel().catch(() => {});
      return { ok: false, tooBig: true, problem: "it is over the size cap" };
    }
    const body = await readCapped(
      response.body as ReadableStream<Uint8Array> | null,
      limits.maxBytes,
    );
    if (body.truncated) return { ok: false, tooBig: true, problem: "it is over the size cap" };
    const contentType = response.headers.get("content-type") ?? undefined;
    return { ok: true, bytes: body.bytes, ...(contentType ? { contentType } : {}) };
  } catch (error) {
    return { ok: false, tooBig: false, problem: failure(error, host, limits, signal) };
  }
}

function failure(
  error: unknown,
  host: string,
  limits: DownloadLimits,
  signal: AbortSignal,
): string {
  const cause = (error as { cause?: unknown }).cause;
  // The reason alone: the error's own hint is about fetch_url and its settings, not files.
  if (cause instanceof FetchRefusedError) {
    return `the address is not allowed: ${cause.reason}. A file is fetched only from the platform or a public address; ask the person to upload it instead of linking it`;
  }
  if (signal.aborted && !limits.signal.aborted) {
    return `${host} did not send it within ${Math.round(limits.timeoutMs / 1000)} s`;
  }
  if (limits.signal.aborted) return "the turn was stopped";
  return `${host} could not be reached`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the file's address";
  }
}
