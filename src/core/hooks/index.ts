export { HookTemplateError } from "./errors.ts";
export { type Hook, hookEventId, hookMessage, hookText } from "./hook.ts";
export {
  bodyDigest,
  DELIVERY_ID,
  HOOK_HEADERS,
  type HookHeaders,
  MAX_AGE_MS,
  MAX_AHEAD_MS,
  SIGNATURE_SCHEMES,
  type SignatureScheme,
  type SignatureVerdict,
  signGitHub,
  signHook,
  verifyHookSignature,
} from "./signature.ts";
export {
  capText,
  type HookTemplate,
  MAX_PLACEHOLDERS,
  MAX_VALUE_CHARS,
  missingMarker,
  parseHookTemplate,
  pathLabel,
  renderHookTemplate,
  type TemplatePiece,
  valueAt,
  valueText,
} from "./template.ts";
