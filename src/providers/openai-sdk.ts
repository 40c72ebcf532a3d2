import type * as OpenAISdk from "openai";

let loaded: typeof OpenAISdk | undefined;

/**
 * The openai SDK, imported at the first model call or transcription rather
 * than with the package, so that `import("switchyard")` stays cheap (issue
 * 29). Imported, not required: the package ships an ES module build beside
 * its CommonJS one, and the ES module is what every `import ... from
 * "openai"` gets, so its error classes are the ones `instanceof` meets.
 */
export async function openAISdk(): Promise<typeof OpenAISdk> {
  loaded ??= await import("openai");
  return loaded;
}

/** The SDK once {@link openAISdk} imported it; until then nothing thrown can be one of its errors. */
export function openAISdkLoaded(): typeof OpenAISdk | undefined {
  return loaded;
}
