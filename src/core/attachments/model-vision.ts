import type { CapabilityStatus } from "../availability/capabilities.ts";
import { findModel, type ModelsConfig } from "../config/models-section.ts";

/** The capability a turn needs for images to reach the model as image parts. */
export const VISION_CAPABILITY = "vision";

/** What the operator declared about which models take images. */
export interface VisionDeclarations {
  /** The bot's own model (`SWITCHYARD_MODEL`, else the fallback): what a turn runs on when nothing is chosen. */
  readonly botModel: string;
  /** `model.vision` in the config file: the bot's own model takes images. */
  readonly declared: boolean;
  /** `SWITCHYARD_MODEL_VISION` when set: wins over `declared` and the list, for the bot's own model. */
  readonly override?: boolean | undefined;
  /** The `models:` list: each entry's `capabilities: { vision: true }` speaks for that model. */
  readonly models: ModelsConfig;
  /** No model is configured for the bot's own model (no key, no server): it sees nothing, and says why. */
  readonly unconfigured?: boolean;
}

/** Why the bot's own model gets no images when there is no model at all. */
export const NO_MODEL_REASON = "no model is configured";

/** Why a model gets no images: names it, so a person who switched with `/model` sees which. */
export function noVisionReason(model: string): string {
  return `the model ${model} has no vision`;
}

/**
 * Whether the model a turn runs on takes images: the bot's own model by
 * `SWITCHYARD_MODEL_VISION`, else `model.vision` or its `models:` entry;
 * any other model (chosen with `/model` or mapped to a channel in the
 * config) by its own `models:` entry alone, so a conversation that switched
 * to a text model never sends an image part (a provider 400) and one that
 * switched to a vision model sees images. Nothing probes the model.
 *
 * @example
 * modelVision("gpt-4.1", { botModel: "gpt-4.1-mini", declared: false, models });
 * // { available: true } when models.list has { name: gpt-4.1, capabilities: { vision: true } }
 */
export function modelVision(
  model: string | undefined,
  declarations: VisionDeclarations,
): CapabilityStatus {
  const name = model ?? declarations.botModel;
  if (name === declarations.botModel && declarations.unconfigured) {
    return { available: false, reason: NO_MODEL_REASON };
  }
  const listed = findModel(declarations.models, name)?.capabilities.vision === true;
  const sees =
    name === declarations.botModel
      ? (declarations.override ?? (declarations.declared || listed))
      : listed;
  return sees ? { available: true } : { available: false, reason: noVisionReason(name) };
}
