import { expect } from "vitest";
import { ProviderError, type ProviderRequest } from "../../src/core/agent/provider.ts";
import type { LoggerPort } from "../../src/core/logger.ts";
import { createOpenAIProvider, type OpenAIProviderOptions } from "../../src/providers/openai.ts";
import type { FakeOpenAI } from "../../src/testing/fakes/openai-server.ts";

export const API_KEY = "sk-switchyard-test-SECRET-0123456789";

const TOOLS =
  '[{"function":{"description":"Writes a note.","name":"write_note","parameters":{"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}},"type":"function"}]';

export function ask(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    system: "You are Switchyard, a helpful bot.",
    tools: TOOLS,
    messages: [{ role: "user", content: "hi" }],
    cacheKey: "slack:T1:C1:1700000000.0001",
    ...overrides,
  };
}

/** What a provider said to its logger and how long it asked to sleep. */
export interface Harness {
  readonly sleeps: number[];
  readonly warnings: { message: string; fields?: Readonly<Record<string, unknown>> }[];
  readonly logger: LoggerPort;
  /** A provider on the fake, sleeping only in `sleeps`. */
  provider(options?: Partial<OpenAIProviderOptions>): ReturnType<typeof createOpenAIProvider>;
}

export function harness(fake: () => FakeOpenAI): Harness {
  const sleeps: number[] = [];
  const warnings: Harness["warnings"] = [];
  const logger: LoggerPort = { warn: (message, fields) => void warnings.push({ message, fields }) };
  return {
    sleeps,
    warnings,
    logger,
    provider: (options = {}) =>
      createOpenAIProvider({
        apiKey: API_KEY,
        baseURL: fake().url,
        model: "gpt-test",
        logger,
        sleep: async (ms) => void sleeps.push(ms),
        ...options,
      }),
  };
}

export async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => {
      throw new Error("expected the provider to fail");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}
