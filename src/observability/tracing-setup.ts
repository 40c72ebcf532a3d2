import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { TelemetryConfig } from "../core/config/telemetry-section.ts";
import { setCaptureContent } from "./tracing.ts";
import { instrumentClients } from "./tracing-clients.ts";
import { tracingWanted } from "./tracing-wanted.ts";

export { tracingWanted } from "./tracing-wanted.ts";

/** A registered tracing SDK; `shutdown` sends what is still buffered. */
export interface Tracing {
  /** Where spans go (the collector's traces URL, or "OTEL_* variables"). */
  readonly destination: string;
  shutdown(): Promise<void>;
}

/**
 * Registers the OpenTelemetry SDK with an OTLP/HTTP exporter, and the Redis
 * and HTTP client instrumentations (tracing-clients.ts), when traces are
 * configured; otherwise nothing is loaded into the API and every span is the
 * no-op one. The variables win over the file (as in every OpenTelemetry SDK):
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, `OTEL_BSP_*` and so on.
 *
 * @example
 * const tracing = setupTracing(config.current.telemetry, process.env);
 * // ... on shutdown:
 * await tracing?.shutdown();
 */
export function setupTracing(config: TelemetryConfig, env: NodeJS.ProcessEnv): Tracing | undefined {
  if (!tracingWanted(config, env)) return undefined;
  const fromEnv = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url =
    fromEnv || !config.endpoint ? undefined : `${config.endpoint.replace(/\/+$/, "")}/v1/traces`;
  const exporter = new OTLPTraceExporter(url ? { url } : {});
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME || config.serviceName,
    }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  setCaptureContent(config.captureContent);
  const clients = instrumentClients(provider);
  return {
    destination: url ?? "the OTEL_* variables",
    shutdown: () => {
      clients.disable();
      return provider.shutdown();
    },
  };
}
