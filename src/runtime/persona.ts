import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentDefinition } from "../core/agents/index.ts";
import {
  MAX_PERSONA_BYTES,
  type PersonaChoice,
  personaChoiceFor,
  type SwitchyardConfig,
} from "../core/config/index.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import type { LoggerPort } from "../core/logger.ts";
import { StartOptionError } from "./errors.ts";

/**
 * The persona of each conversation, from the config's `agent:` keys over the
 * bot's own `persona` option. Files are read when a config is first seen (at
 * start, then once per reload), never per turn: two turns between reloads
 * send the same system prompt bytes. A file that breaks on a reload warns
 * and keeps its last good text.
 */
export class PersonaBook {
  readonly #fallback: string;
  readonly #baseDir: string;
  readonly #logger: LoggerPort;
  /** Path -> its text as last read well. */
  readonly #files = new Map<string, string>();
  #seen: SwitchyardConfig | undefined;

  constructor(options: { fallback: string; baseDir: string; logger: LoggerPort }) {
    this.#fallback = options.fallback;
    this.#baseDir = options.baseDir;
    this.#logger = options.logger;
  }

  /**
   * Reads every persona file the config names. At start a file that cannot
   * be read is a {@link StartOptionError}; later it is a warning.
   */
  read(config: SwitchyardConfig, { strict }: { strict: boolean }): void {
    this.#seen = config;
    const { persona, workspaces = {}, channels = {} } = config.agent;
    const choices = [
      persona,
      ...Object.values(workspaces),
      ...Object.values(channels),
      ...(config.agents ?? []).map((agent) => agent.persona),
    ];
    for (const choice of choices) {
      if (choice === undefined || !("file" in choice)) continue;
      const path = resolve(this.#baseDir, choice.file);
      try {
        this.#files.set(path, readPersonaFile(path));
      } catch (error) {
        const message = `The persona file ${choice.file} (${path}) cannot be used: ${(error as Error).message}`;
        if (strict) throw new StartOptionError(`${message}. Fix the path in its persona_file:.`);
        this.#logger.warn(`${message}; the last good text stays.`);
      }
    }
  }

  /**
   * The persona a turn of this conversation sends: the answering agent's
   * own, when it has one, else the `agent:` section's for the conversation.
   */
  personaFor(
    config: SwitchyardConfig,
    address: ConversationAddress,
    agent?: AgentDefinition,
  ): string {
    if (config !== this.#seen) this.read(config, { strict: false });
    return this.#text(agent?.persona ?? personaChoiceFor(config.agent, address));
  }

  #text(choice: PersonaChoice | undefined): string {
    if (choice === undefined) return this.#fallback;
    if ("text" in choice) return choice.text;
    return this.#files.get(resolve(this.#baseDir, choice.file)) ?? this.#fallback;
  }
}

function readPersonaFile(path: string): string {
  const text = readFileSync(path, "utf8");
  if (Buffer.byteLength(text, "utf8") > MAX_PERSONA_BYTES) {
    throw new Error(`it is over ${MAX_PERSONA_BYTES} bytes, and a persona rides in every request`);
  }
  if (text.trim() === "") throw new Error("it is empty");
  return text;
}
