import { listenLocal, readBody } from "../../src/testing/fakes/local-server.ts";

/** One span as OTLP/JSON carries it, flattened to what tests look at. */
export interface CollectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly service: string | undefined;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly links: readonly {
    traceId: string;
    spanId: string;
    attributes: Readonly<Record<string, unknown>>;
  }[];
}

export interface FakeCollector {
  /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly url: string;
  readonly spans: CollectedSpan[];
  close(): Promise<void>;
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

function attributesOf(list: readonly KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    const [kind, raw] = Object.entries(value)[0] ?? [];
    out[key] = kind === "intValue" ? Number(raw) : raw;
  }
  return out;
}

/**
 * A local OpenTelemetry collector: takes OTLP/HTTP JSON export requests on
 * `POST /v1/traces` (what `@opentelemetry/exporter-trace-otlp-http` sends),
 * as Jaeger or an OpenTelemetry Collector would, and keeps the spans.
 */
export async function startFakeCollector(): Promise<FakeCollector> {
  const spans: CollectedSpan[] = [];
  const server = await listenLocal(async (req, res) => {
    const text = await readBody(req);
    if (req.method !== "POST" || req.url !== "/v1/traces") {
      res.writeHead(404).end();
      return;
    }
    try {
      spans.push(...spansOf(JSON.parse(text)));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    } catch {
      res.writeHead(400).end();
    }
  });
  return { url: server.url, spans, close: server.close };
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: KeyValue[];
        links?: { traceId: string; spanId: string; attributes?: KeyValue[] }[];
      }[];
    }[];
  }[];
}

function spansOf(body: ExportRequest): CollectedSpan[] {
  const spans: CollectedSpan[] = [];
  for (const resource of body.resourceSpans ?? []) {
    const service = attributesOf(resource.resource?.attributes)["service.name"] as string;
    for (const scope of resource.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          name: span.name,
          service,
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((link) => ({
            traceId: link.traceId,
            spanId: link.spanId,
            attributes: attributesOf(link.attributes),
          })),
        });
      }
    }
  }
  return spans;
}
