import type { ModelLimits } from "../core/config/model-section.ts";
import type { LoggerPort } from "../core/logger.ts";

/** What every model provider is created with: where the server is, which model, and how calls behave. */
export interface ProviderOptions {
  /** Omit for a local server that wants none; a placeholder is sent instead. */
  apiKey?: string;
  /** The server; defaults to the vendor's own. The SDK's environment fallback is not used. */
  baseURL?: string;
  model: string;
  /** Retries of what is worth retrying (429, 408, 5xx, dropped connections), after the first attempt. Default 4. */
  maxRetries?: number;
  /**
   * Timeouts and reply caps; unset fields keep `DEFAULT_MODEL_LIMITS`.
   * A function is asked at the start of every call, so a reloaded config file
   * takes effect without a restart.
   */
  limits?: Partial<ModelLimits> | (() => Partial<ModelLimits>);
  temperature?: number;
  /** Hears about retries, odd tool bytes and what the SDK logs; never the API key. */
  logger?: LoggerPort;
  /** How to wait between retries; tests inject one that records the delays. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The SDKs refuse to start without a key; local servers ignore it. */
export const NO_API_KEY = "no-api-key";
/** The start of an error body that is kept: enough for any API error, not a 1 GB page. */
export const MAX_ERROR_BYTES = 64 * 1024;
