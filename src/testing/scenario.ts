/**
 * Scenario files: a conversation with the bot written as YAML, and what it
 * must have done. `switchyard test [files…]` runs them (scenario-command.ts).
 *
 * ```yaml
 * name: stock questions
 * bot: ../parts.js          # a module exporting `testBot`: createTestBot's options (tools, persona, …)
 * platforms: [slack]
 * model:
 *   rules:
 *     - when: kettle
 *       reply:
 *         - tool: stock_level
 *           args: { product: ember-kettle }
 *         - "Kit here: {{lastToolResult}}"
 * steps:
 *   - say: Do we have the kettle?
 *     expect:
 *       answer_contains: 12 ember-kettle
 *       tool_called: { name: stock_level, args: { product: ember-kettle } }
 *       contract_has: stock_level
 *   - say: { text: hello, channel: C0GENERAL }
 *     expect: { answer_matches: "^Kit here", tool_not_called: refund, answers: 2 }
 *   - say: Can I return a used kettle?
 *     expect:
 *       judge: { rubric: "Explains the return policy and does not promise a refund.", pass: 0.7 }
 * ```
 *
 * The model's text may quote `{{lastUserText}}` and `{{lastToolResult}}`.
 * Steps are `say`, `click` (a button's label), `approve` and `deny`; each
 * waits for the bot's next answer, then checks its `expect`.
 */
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { ModelRequest, ModelScript, ModelStep } from "./scripted-model.ts";

/** A scenario file that cannot be read; the message names the file and the field. */
export class ScenarioError extends Error {
  override readonly name = "ScenarioError";
}

const where = {
  platform: z.enum(["slack", "telegram", "discord"]).optional(),
  user: z.string().optional(),
  channel: z.string().optional(),
  thread: z.string().optional(),
  mention: z.boolean().optional(),
};

const step = z.union([
  z.string(),
  z.strictObject({ text: z.string(), delay_ms: z.number().optional() }),
  z.strictObject({ tool: z.string(), args: z.unknown().optional() }),
  z.strictObject({ stall: z.literal(true) }),
  z.strictObject({ error: z.number().int(), message: z.string().optional() }),
]);

const expectation = z.strictObject({
  answer_contains: z.union([z.string(), z.array(z.string())]).optional(),
  answer_matches: z.string().optional(),
  tool_called: z
    .union([
      z.string(),
      z.strictObject({ name: z.string(), args: z.record(z.string(), z.unknown()).optional() }),
    ])
    .optional(),
  tool_not_called: z.union([z.string(), z.array(z.string())]).optional(),
  contract_has: z.union([z.string(), z.array(z.string())]).optional(),
  contract_lacks: z.union([z.string(), z.array(z.string())]).optional(),
  /** How many messages the bot has posted in all by now. */
  answers: z.number().int().optional(),
  /** A model grades the answer against the rubric, from 0 to 1; below `pass` (default 0.7) the step fails (judge.ts). */
  judge: z
    .strictObject({
      rubric: z.string().trim().min(1, "the rubric is empty: say what a good answer does"),
      pass: z.number().min(0).max(1).optional(),
    })
    .optional(),
});

const action = z.union([
  z.strictObject({
    say: z.union([z.string(), z.strictObject({ text: z.string(), ...where })]),
    expect: expectation.optional(),
  }),
  z.strictObject({ click: z.string(), ...where, expect: expectation.optional() }),
  z.strictObject({ approve: z.literal(true), ...where, expect: expectation.optional() }),
  z.strictObject({ deny: z.literal(true), ...where, expect: expectation.optional() }),
]);

const scenarioSchema = z.strictObject({
  name: z.string(),
  bot: z.string().optional(),
  config: z.string().optional(),
  /** The model the judge asks for; default the bot's own. */
  judge_model: z.string().min(1).optional(),
  platforms: z
    .array(z.enum(["slack", "telegram", "discord"]))
    .min(1)
    .optional(),
  model: z
    .strictObject({
      rules: z
        .array(
          z.strictObject({
            when: z.string(),
            match: z.enum(["contains", "regex"]).optional(),
            reply: z.union([step, z.array(step)]),
          }),
        )
        .optional(),
      sequence: z.array(step).optional(),
      otherwise: step.optional(),
    })
    .optional(),
  steps: z.array(action).min(1),
});

export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioAction = z.infer<typeof action>;
export type ScenarioExpectation = z.infer<typeof expectation>;

/** Reads one scenario file's text; throws a {@link ScenarioError} naming the file and what is wrong. */
export function parseScenario(text: string, file: string): Scenario {
  let data: unknown;
  try {
    data = parseYaml(text, { logLevel: "error" });
  } catch (error) {
    throw new ScenarioError(`${file}: not YAML: ${(error as Error).message}`);
  }
  const result = scenarioSchema.safeParse(data);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`);
    throw new ScenarioError(`${file}: ${problems.join("; ")}`);
  }
  return result.data;
}

/** The scenario's model section as the scripted model's script. */
export function scenarioModel(model: Scenario["model"]): ModelScript {
  if (!model) return {};
  return {
    ...(model.rules
      ? {
          rules: model.rules.map((rule) => ({
            when: rule.match === "regex" ? new RegExp(rule.when, "i") : rule.when,
            reply: Array.isArray(rule.reply) ? rule.reply.map(modelStep) : modelStep(rule.reply),
          })),
        }
      : {}),
    ...(model.sequence ? { sequence: model.sequence.map(modelStep) } : {}),
    ...(model.otherwise ? { otherwise: modelStep(model.otherwise) } : {}),
  };
}

type YamlStep = z.infer<typeof step>;

function modelStep(yaml: YamlStep): ModelStep {
  if (typeof yaml === "string") return (request) => fill(yaml, request);
  if ("text" in yaml) {
    const { text, delay_ms } = yaml;
    return (request) => ({ text: fill(text, request), ...(delay_ms ? { delayMs: delay_ms } : {}) });
  }
  if ("tool" in yaml) return { tool: yaml.tool, args: yaml.args ?? {} };
  if ("stall" in yaml) return { stall: true };
  return { error: yaml.error, ...(yaml.message ? { message: yaml.message } : {}) };
}

/** `{{lastUserText}}` and `{{lastToolResult}}` in a scripted text, filled from the request. */
function fill(text: string, request: ModelRequest): string {
  return text
    .replaceAll("{{lastUserText}}", request.lastUserText)
    .replaceAll("{{lastToolResult}}", request.lastToolResult ?? "");
}
