import type { AttachmentsConfig } from "../config/attachments-section.ts";
import type { AttachmentKind } from "./content.ts";

/**
 * The size cap for a kind of file, and the config key that sets it (named
 * in the note a file over it gets). The same caps hold for files people
 * send and files tools make.
 */
export function capOf(kind: AttachmentKind, limits: AttachmentsConfig): [number, string] {
  switch (kind) {
    case "image":
      return [limits.maxImageBytes, "attachments.max_image_bytes"];
    case "document":
      return [limits.maxDocumentBytes, "attachments.max_document_bytes"];
    case "audio":
      return [limits.maxAudioBytes, "attachments.max_audio_bytes"];
    default:
      return [limits.maxOtherBytes, "attachments.max_other_bytes"];
  }
}

/** The config key of the per-turn total, as notes name it. */
export const TURN_CAP_KEY = "attachments.max_turn_bytes";
