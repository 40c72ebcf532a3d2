import type { CapabilityStatus } from "../../core/availability/capabilities.ts";
import { type ModelSection, visionFromEnv } from "../../core/config/model-section.ts";
import { findModel, type ModelsConfig } from "../../core/config/models-section.ts";

/** The model requests name when neither the config nor a chat choice picks one (`SWITCHYARD_MODEL` unset). */
export const FALLBACK_MODEL = "gpt-4.1-mini";

/** A `SWITCHYARD_MODEL_VISION` that is neither true nor false: a start error, never a guess. */
export class VisionSettingError extends Error {
  override readonly name = "VisionSettingError";
}

export const NO_VISION_REASON = "the configured model has no vision";

/**
 * The `vision` capability: present when the operator declared the model
 * vision-capable: `model.vision: true`, or the bot's model
 * (`SWITCHYARD_MODEL`) listed under `models:` with
 * `capabilities: { vision: true }`; `SWITCHYARD_MODEL_VISION` wins over
 * both. Nothing probes the model: a wrong declaration shows as the
 * provider's error on the first image.
 *
 * @example
 * visionCapability(config.model, { SWITCHYARD_MODEL: "gpt-4.1" }, config.models);
 * // { available: true } when models.list has { name: gpt-4.1, capabilities: { vision: true } }
 */
export function visionCapability(
  model: Pick<ModelSection, "vision">,
  env: Readonly<Record<string, string | undefined>>,
  models?: ModelsConfig,
): CapabilityStatus {
  const fromEnv = visionFromEnv(env.SWITCHYARD_MODEL_VISION);
  if (typeof fromEnv === "string") throw new VisionSettingError(fromEnv);
  const listed = models && findModel(models, env.SWITCHYARD_MODEL ?? FALLBACK_MODEL);
  return (fromEnv ?? (model.vision || listed?.capabilities.vision === true))
    ? { available: true }
    : { available: false, reason: NO_VISION_REASON };
}
