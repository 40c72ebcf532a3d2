import {
  ANTHROPIC_BASE_URL,
  ANTHROPIC_FALLBACK_MODEL,
} from "../../providers/anthropic/provider.ts";
import type { DoctorContext, Finding } from "./finding.ts";
import { noModelServer, ok, problem, reasonOf, within } from "./finding.ts";

/**
 * The Anthropic model answers a tiny streamed request that carries what every
 * turn sends: a tool with a `cache_control` breakpoint and system blocks.
 * The SDK loads only here, when the bot's model is Anthropic's.
 */
export async function checkAnthropicModel(context: DoctorContext): Promise<Finding[]> {
  const { env, timeoutMs } = context;
  if (!env.ANTHROPIC_API_KEY && !env.ANTHROPIC_BASE_URL) {
    return noModelServer(
      "model.provider is anthropic but no Anthropic server is configured",
      "set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a server other than Anthropic's) and SWITCHYARD_MODEL",
    );
  }
  const model = env.SWITCHYARD_MODEL?.trim() || ANTHROPIC_FALLBACK_MODEL;
  const baseURL = env.ANTHROPIC_BASE_URL || ANTHROPIC_BASE_URL;
  const { Anthropic } = await import("@anthropic-ai/sdk");
  const client = new Anthropic({
    apiKey: env.ANTHROPIC_API_KEY || "no-api-key",
    baseURL,
    maxRetries: 0,
    timeout: timeoutMs,
  });
  const asked = async () => {
    const stream = await client.messages.create({
      model,
      max_tokens: 16,
      system: [{ type: "text", text: "switchyard doctor", cache_control: { type: "ephemeral" } }],
      tools: [
        {
          name: "doctor_probe",
          description: "Never needed: switchyard doctor checks that the server takes tools.",
          input_schema: { type: "object", properties: {} },
          cache_control: { type: "ephemeral" },
        },
      ],
      messages: [{ role: "user", content: "Reply with the single word: ok" }],
      stream: true,
    });
    for await (const _event of stream) {
      // Reading to the end proves the stream works; the words do not matter.
    }
  };
  try {
    await within(timeoutMs, baseURL, asked());
    return [
      ok(
        "model",
        `${model} at ${baseURL} answers (Anthropic Messages API), and takes tools and cache_control`,
      ),
    ];
  } catch (error) {
    const status = (error as { status?: unknown })?.status;
    const reason = reasonOf(error);
    if (status === 401 || status === 403) {
      return [
        problem(
          "model",
          `${baseURL} refused the key (HTTP ${status}): ${reason}`,
          "set ANTHROPIC_API_KEY to a key this server accepts",
        ),
      ];
    }
    if (status === 404 || (status === 400 && /model/i.test(reason))) {
      return [
        problem(
          "model",
          `${baseURL} does not serve the model "${model}" (HTTP ${status}): ${reason}`,
          "set SWITCHYARD_MODEL to a Claude model the account can use",
        ),
      ];
    }
    if (typeof status === "number") {
      return [
        problem(
          "model",
          `${baseURL} answered HTTP ${status}: ${reason}`,
          "check the status page or the server's logs, then run doctor again",
        ),
      ];
    }
    return [
      problem(
        "model",
        `${baseURL} does not answer: ${reason}`,
        "check ANTHROPIC_BASE_URL (without /v1) and the network",
      ),
    ];
  }
}
