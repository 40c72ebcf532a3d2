export { VISION_CAPABILITY } from "../../core/attachments/model-vision.ts";
export {
  DocumentStore,
  documentId,
  READ_ATTACHMENT_CAPABILITY,
  readAttachmentCapability,
} from "./document-store.ts";
export { visionImage } from "./image.ts";
export { readAttachmentTool } from "./read-attachment.ts";
export { FileReader, type FileReaderOptions } from "./reader.ts";
export { fileRef, RedisToolFiles, type RedisToolFilesOptions } from "./tool-files.ts";
export {
  openAITranscriber,
  TRANSCRIPTION_CAPABILITY,
  type Transcriber,
  transcriptionCapability,
} from "./transcribe.ts";
export { VisionSettingError, visionDeclarations } from "./vision.ts";
