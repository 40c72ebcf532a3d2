import type { CapabilityStatus } from "../../core/availability/capabilities.ts";
import { type ModelSection, visionFromEnv } from "../../core/config/model-section.ts";

/** A `SWITCHYARD_MODEL_VISION` that is neither true nor false: a start error, never a guess. */
export class VisionSettingError extends Error {
  override readonly name = "VisionSettingError";
}

export const NO_VISION_REASON = "the configured model has no vision";

/**
 * The `vision` capability: present when the operator declared the model
 * vision-capable (`model.vision: true`, or `SWITCHYARD_MODEL_VISION=true`,
 * which wins). Nothing probes the model: a wrong declaration shows as the
 * provider's error on the first image.
 */
export function visionCapability(
  model: Pick<ModelSection, "vision">,
  env: Readonly<Record<string, string | undefined>>,
): CapabilityStatus {
  const fromEnv = visionFromEnv(env.SWITCHYARD_MODEL_VISION);
  if (typeof fromEnv === "string") throw new VisionSettingError(fromEnv);
  return (fromEnv ?? model.vision)
    ? { available: true }
    : { available: false, reason: NO_VISION_REASON };
}
