import OpenAI from "openai";
import { botModelOf } from "../../core/config/bot-model.ts";
import { providerNameOf } from "../../runtime/provider-env.ts";
import { checkAnthropicModel } from "./anthropic-model.ts";
import type { DoctorContext, Finding } from "./finding.ts";
import { noModelServer, ok, problem, reasonOf, within } from "./finding.ts";

/** The request features every turn uses; a server that refuses one fails every turn. */
const FEATURES = ["stream_options", "prompt_cache_key", "tools"] as const;
type Feature = (typeof FEATURES)[number];

const PROBE_TOOL: OpenAI.ChatCompletionTool = {
  type: "function",
  function: {
    name: "doctor_probe",
    description: "Never needed: switchyard doctor checks that the server takes tools.",
    parameters: { type: "object", properties: {} },
  },
};

/**
 * The model answers a tiny streamed request with the configured model, and
 * takes what a turn sends with it: `stream_options` (usage), `prompt_cache_key`
 * and `tools`. When the full request is refused, each feature is tried alone
 * to name the one the server does not take.
 */
export async function checkModel(context: DoctorContext): Promise<Finding[]> {
  const { env, timeoutMs } = context;
  if (providerNameOf(env, context.config.model.provider) === "anthropic") {
    return checkAnthropicModel(context);
  }
  if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) {
    return noModelServer(
      "no model is configured",
      "set OPENAI_API_KEY (and OPENAI_BASE_URL for a server other than OpenAI's) and SWITCHYARD_MODEL, or ANTHROPIC_API_KEY for Claude",
    );
  }
  const model = botModelOf(env);
  const baseURL = env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
  const client = new OpenAI({
    apiKey: env.OPENAI_API_KEY || "no-api-key",
    baseURL,
    maxRetries: 0,
    timeout: timeoutMs,
  });
  // Undefined when the server streamed an answer, else what went wrong (a timeout included).
  const ask = (features: readonly Feature[]) =>
    within(timeoutMs, baseURL, probe(client, model, features)).catch((error: unknown) => error);
  const all = await ask(FEATURES);
  if (all === undefined) {
    return [ok("model", `${model} at ${baseURL} answers, and takes ${FEATURES.join(", ")}`)];
  }
  const bare = await ask([]);
  if (bare !== undefined) return [refusal(bare, model, baseURL)];
  const refused: Feature[] = [];
  for (const feature of FEATURES) if ((await ask([feature])) !== undefined) refused.push(feature);
  const which = refused.length > 0 ? refused : FEATURES;
  return [
    problem(
      "model",
      `${model} at ${baseURL} answers a plain request but refuses ${which.join(" and ")}, which every turn sends: ${reasonOf(all)}`,
      "use a server or version that takes them (vLLM, llama.cpp and Ollama do in recent versions), or another model",
    ),
  ];
}

/** Undefined when the server streamed an answer; else what it threw. */
async function probe(
  client: OpenAI,
  model: string,
  features: readonly Feature[],
): Promise<unknown | undefined> {
  try {
    const stream = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "Reply with the single word: ok" }],
      stream: true,
      ...(features.includes("stream_options") ? { stream_options: { include_usage: true } } : {}),
      ...(features.includes("prompt_cache_key") ? { prompt_cache_key: "switchyard-doctor" } : {}),
      ...(features.includes("tools") ? { tools: [PROBE_TOOL] } : {}),
    });
    for await (const _chunk of stream) {
      // Reading to the end proves the stream works; the words do not matter.
    }
    return undefined;
  } catch (error) {
    return error ?? new Error("failed");
  }
}

/** A plain request failed: the server, the key or the model, by what the server said. */
function refusal(error: unknown, model: string, baseURL: string): Finding {
  const status = error instanceof OpenAI.APIError ? error.status : undefined;
  const reason = reasonOf(error);
  if (status === 401 || status === 403) {
    return problem(
      "model",
      `${baseURL} refused the key (HTTP ${status}): ${reason}`,
      "set OPENAI_API_KEY to a key this server accepts",
    );
  }
  if (status === 404 || (status === 400 && /model/i.test(reason))) {
    return problem(
      "model",
      `${baseURL} does not serve the model "${model}" (HTTP ${status}): ${reason}`,
      "set SWITCHYARD_MODEL to a model the server lists (GET /v1/models)",
    );
  }
  if (status !== undefined) {
    return problem(
      "model",
      `${baseURL} answered HTTP ${status}: ${reason}`,
      "check the server's logs, then run doctor again",
    );
  }
  return problem(
    "model",
    `${baseURL} does not answer: ${reason}`,
    "start the model server, or set OPENAI_BASE_URL to where it listens (with /v1)",
  );
}
