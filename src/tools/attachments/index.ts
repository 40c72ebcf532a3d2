export { visionImage } from "./image.ts";
export { FileReader, type FileReaderOptions, VISION_CAPABILITY } from "./reader.ts";
export {
  openAITranscriber,
  TRANSCRIPTION_CAPABILITY,
  type Transcriber,
  transcriptionCapability,
} from "./transcribe.ts";
export { NO_VISION_REASON, VisionSettingError, visionCapability } from "./vision.ts";
