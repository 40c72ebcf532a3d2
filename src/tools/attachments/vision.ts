import type { VisionDeclarations } from "../../core/attachments/model-vision.ts";
import { botModelOf } from "../../core/config/bot-model.ts";
import { type ModelSection, visionFromEnv } from "../../core/config/model-section.ts";
import { DEFAULT_MODELS, type ModelsConfig } from "../../core/config/models-section.ts";

/** A `SWITCHYARD_MODEL_VISION` that is neither true nor false: a start error, never a guess. */
export class VisionSettingError extends Error {
  override readonly name = "VisionSettingError";
}

/**
 * What the operator declared about vision, from the config and the
 * environment: `model.vision` and `SWITCHYARD_MODEL_VISION` speak for the
 * bot's own model (`SWITCHYARD_MODEL`), each `models:` entry's
 * `capabilities: { vision: true }` for that model. The `vision` capability
 * of a turn is then decided by the model it runs on (`modelVision`).
 *
 * @example
 * modelVision("gpt-4.1", visionDeclarations(config.model, process.env, config.models));
 */
export function visionDeclarations(
  model: Pick<ModelSection, "vision">,
  env: Readonly<Record<string, string | undefined>>,
  models: ModelsConfig = DEFAULT_MODELS,
): VisionDeclarations {
  const override = visionFromEnv(env.SWITCHYARD_MODEL_VISION);
  if (typeof override === "string") throw new VisionSettingError(override);
  return { botModel: botModelOf(env), declared: model.vision, override, models };
}
