import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import {
  type Attributes,
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  type Link,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type * as OtelCore from "@opentelemetry/core";
import type { W3CTraceContextPropagator } from "@opentelemetry/core";

/**
 * Switchyard's spans. The code calls `@opentelemetry/api` only: until
 * `switchyard start` registers an SDK (tracing-setup.ts), every tracer is the
 * API's no-op one, spans record nothing and no trace context is carried.
 *
 * One trace per message: `switchyard.ingress` (receive) and its child
 * `switchyard.enqueue`, whose W3C trace context rides in the message through
 * the inbox to whichever worker takes it; there `switchyard.queue.wait` and
 * `switchyard.turn` continue the trace, with `switchyard.model.request`,
 * `switchyard.tool.call` and `switchyard.deliver` under the turn.
 */
export const TRACER_NAME = "switchyard";

/** The trace context a message carries, as W3C `traceparent` / `tracestate` fields. */
export type TraceCarrier = Readonly<Record<string, string>>;

let w3c: W3CTraceContextPropagator | undefined;

/**
 * The W3C trace-context propagator, built at the first message carried
 * rather than with the package (issue 29). @opentelemetry/core is
 * CommonJS only, so it is required where it is first needed.
 */
function propagator(): W3CTraceContextPropagator {
  w3c ??= new (
    createRequire(import.meta.url)("@opentelemetry/core") as typeof OtelCore
  ).W3CTraceContextPropagator();
  return w3c;
}

let captureContent = false;

/**
 * Whether tool arguments and results go into spans (`telemetry.capture_content`).
 * Off by default: they may hold personal data.
 */
export function setCaptureContent(on: boolean): void {
  captureContent = on;
}

export function capturesContent(): boolean {
  return captureContent;
}

export function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** The API's own no-op provider: what a proxy with no SDK behind it hands out. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();
/** The span code runs under while nothing records: one for all, it records nothing. */
const OFF_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Whether an SDK is registered, so a span may record. Asked per span, not
 * cached: an SDK can be registered (or disabled) after start. While it is
 * off, the spans' bookkeeping (contexts, attribute objects, hashed keys) is
 * skipped: a warm turn opens about seven spans.
 */
export function tracingOn(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

/**
 * A conversation key as spans show it: hashed, so a trace backend never holds
 * platform ids of people or channels, yet one conversation's turns group.
 */
export function hashedKey(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/** The active span's context in the carrier form; undefined when nothing records. */
export function injectCarrier(ctx: Context = context.active()): TraceCarrier | undefined {
  if (!trace.getSpan(ctx)?.isRecording()) return undefined;
  const carrier: Record<string, string> = {};
  propagator().inject(ctx, carrier, {
    set: (target, key, value) => {
      target[key] = value;
    },
  });
  return carrier.traceparent ? carrier : undefined;
}

/** The context a carrier names (a root context for none or a malformed one). */
export function extractCarrier(carrier: TraceCarrier | undefined): Context {
  if (!carrier || typeof carrier.traceparent !== "string") return ROOT_CONTEXT;
  return propagator().extract(ROOT_CONTEXT, carrier, {
    get: (source, key) => source[key],
    keys: (source) => Object.keys(source),
  });
}

/** A link to the span a carrier names; undefined for none. */
export function linkTo(
  carrier: TraceCarrier | undefined,
  attributes?: Attributes,
): Link | undefined {
  const span = trace.getSpanContext(extractCarrier(carrier));
  return span ? { context: span, ...(attributes ? { attributes } : {}) } : undefined;
}

/**
 * Runs `fn` inside a new active span that ends when `fn` settles; a throw marks
 * it failed (the error's type, never its message, which may quote input).
 */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; links?: Link[]; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return fn(OFF_SPAN);
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.attributes ? { attributes: options.attributes } : {}),
      ...(options.links ? { links: options.links } : {}),
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Marks a span failed by the error's name only. */
export function failed(span: Span, error: unknown): void {
  const type = error instanceof Error ? error.name : typeof error;
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  span.setAttribute("error.type", type);
}

/** Sets attributes on the active span, if one records (a hook for code deep in a call). */
export function noteOnActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

export { SpanKind };
