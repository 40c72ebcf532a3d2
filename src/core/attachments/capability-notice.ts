import { type Capabilities, capabilityStatus } from "../availability/capabilities.ts";
import { VISION_CAPABILITY } from "./model-vision.ts";

/** The capabilities that decide what happens to files people send, in the order they are shown. */
export const ATTACHMENT_CAPABILITIES = [
  VISION_CAPABILITY,
  "transcription",
  "read_attachment",
] as const;

/** Each attachment capability: present, or absent with its reason. */
export function attachmentCapabilities(
  capabilities: Capabilities,
): { name: string; available: boolean; reason?: string }[] {
  return ATTACHMENT_CAPABILITIES.map((name) => {
    const status = capabilityStatus(capabilities, name);
    return status.available
      ? { name, available: true }
      : { name, available: false, reason: status.reason.replace(/\.$/, "") };
  });
}

/**
 * One sentence for the `/tools` list: what the bot does with images, voice
 * notes and long documents here, e.g. "Attachments: vision on; transcription
 * off (no transcription endpoint); read_attachment on."
 */
export function attachmentNotice(capabilities: Capabilities): string {
  const parts = attachmentCapabilities(capabilities).map((c) =>
    c.available ? `${c.name} on` : `${c.name} off (${c.reason})`,
  );
  return `Attachments: ${parts.join("; ")}.`;
}
