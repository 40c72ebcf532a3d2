import type { TelemetryConfig } from "../core/config/telemetry-section.ts";

/**
 * Whether traces are configured: a `telemetry.endpoint`, or the standard
 * variables. Apart from tracing-setup.ts so that asking imports no SDK.
 */
export function tracingWanted(config: TelemetryConfig, env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none") return false;
  return Boolean(
    config.endpoint || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  );
}
