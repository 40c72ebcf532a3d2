import { configReader, defineConfigFormat, type PlatformSections } from "../core/config/index.ts";
import { discordPlatformSection } from "./discord/config-section.ts";
import { slackPlatformSection } from "./slack/config-section.ts";
import { telegramPlatformSection } from "./telegram/config-section.ts";

/*
 * The config file as this build reads it: the core's sections and the
 * platforms'. Each platform writes its section in its own folder
 * (`<platform>/config-section.ts`); the core knows none of them, so they are
 * handed to it here. A fourth platform adds one line below.
 */

/** Every platform's section of the config file, in the order the file's problems are found. */
export const PLATFORM_SECTIONS: PlatformSections = Object.freeze({
  slack: slackPlatformSection,
  discord: discordPlatformSection,
  telegram: telegramPlatformSection,
});

const format = defineConfigFormat(PLATFORM_SECTIONS);

/** The config an empty file (or none) reads as: every section's defaults. */
export const EMPTY_CONFIG = format.empty;

/** The top-level sections this version reads; any other key is reported and ignored. */
export const SECTIONS = format.sections;

export const { readConfig, parseConfig, reloadConfig } = configReader(format);
