/**
 * The stored Slack payloads under test/fixtures/slack (see its README): one
 * file each, with the published payload its shape is modeled on and what
 * Switchyard must do with it.
 *
 * @example
 * for (const f of slackFixtures("events")) {
 *   await sendEvent… // or: sendSigned(url, SECRET, JSON.stringify(adopt(f.body, f.bot)), …)
 * }
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-workspace.ts";

const ROOT = fileURLToPath(new URL("../fixtures/slack/", import.meta.url));

export type FixtureEffect =
  | "queued"
  | "ignored"
  | "acked"
  | "no-options"
  | "unknown-command"
  | "challenge"
  | "rate-limited";

export interface SlackFixture {
  readonly name: string;
  /** The published payload whose shape this one has (repository, commit, path, or docs page). */
  readonly modeledOn: string;
  /** What about the shape matters; the values are this project's own. */
  readonly note: string;
  readonly effect: FixtureEffect;
  /** The bot user the payload was addressed to, replaced by the fake's in {@link adopt}. */
  readonly bot?: string;
  /** events/: the Events API body. */
  // biome-ignore lint/suspicious/noExplicitAny: payloads are read field by field in tests
  readonly body?: any;
  /** commands/: the form-encoded request. */
  readonly form?: string;
  /** interactive/: the interaction payload. */
  // biome-ignore lint/suspicious/noExplicitAny: as above
  readonly payload?: any;
  /** socket/: the whole envelope. */
  // biome-ignore lint/suspicious/noExplicitAny: as above
  readonly envelope?: any;
}

export type FixtureFolder = "events" | "commands" | "interactive" | "socket";

export function slackFixtures(folder: FixtureFolder): SlackFixture[] {
  const dir = join(ROOT, folder);
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({
      name: `${folder}/${file.replace(/\.json$/, "")}`,
      ...(JSON.parse(readFileSync(join(dir, file), "utf8")) as Omit<SlackFixture, "name">),
    }));
}

/** The payload as sent to the fake workspace's bot: the fixture's bot user id replaced by ours. */
export function adopt<T>(value: T, bot: string | undefined): T {
  if (!bot) return value;
  return JSON.parse(JSON.stringify(value).replaceAll(bot, FAKE_SLACK.botUserId)) as T;
}

/** A slash command's form as the JSON fields Socket Mode carries in a `slash_commands` envelope. */
export function formFields(form: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(form));
}
