import type { Reading } from "../reading.ts";

/**
 * One entry of an `allow:` list: who or where is let in, qualified by
 * platform because the same id means different things on different
 * platforms. The whole grammar, in one place:
 *
 * ```text
 * entry     = platform ":" [ kind ":" ] id
 * platform  = [a-z] [a-z0-9_-]*            (slack, discord, telegram, console, ...)
 * kind      = "user" | "workspace" | "team" | "guild" | "channel" | "chat"
 * id        = [A-Za-z0-9._@-]{1,128}       (Telegram's group ids start with "-")
 * ```
 *
 * Without a kind an entry names a person (`telegram:123`, `discord:456`),
 * except where Slack's ids say what they are: `slack:T0123` and `slack:E0123`
 * are workspaces (teams, Enterprise grids), `slack:C0123`, `slack:G0123` and
 * `slack:D0123` channels. `team` and `guild` are other words for `workspace`; `chat` for
 * `channel` (a Telegram chat is its own workspace and channel, so
 * `telegram:chat:-1001234` lets a group in).
 *
 * @example
 * parseAccessEntry("discord:guild:456"); // { ok: true, entry: { platform: "discord", kind: "workspace", id: "456" } }
 */
export type AccessEntryKind = "user" | "workspace" | "channel";

export interface AccessEntry {
  readonly platform: string;
  readonly kind: AccessEntryKind;
  readonly id: string;
}

export type AccessEntryReading = Reading<"entry", AccessEntry>;

const PLATFORM = /^[a-z][a-z0-9_-]*$/;
const ID = /^[A-Za-z0-9._@-]{1,128}$/;

const KINDS: Readonly<Record<string, AccessEntryKind>> = {
  user: "user",
  workspace: "workspace",
  team: "workspace",
  guild: "workspace",
  channel: "channel",
  chat: "channel",
};

const EXAMPLES =
  "telegram:123, slack:U0123, slack:T0123, discord:guild:456, telegram:chat:-1001234";

export function parseAccessEntry(text: string): AccessEntryReading {
  const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
  const parts = text.split(":");
  const fail = (why: string): AccessEntryReading => ({
    ok: false,
    problem: `${shown} ${why} Write platform:id or platform:kind:id, e.g. ${EXAMPLES}.`,
  });
  if (parts.length < 2 || parts.length > 3) {
    return fail(
      "is not an access entry: it needs a platform and an id, split by one or two colons.",
    );
  }
  const [platform = "", ...rest] = parts;
  if (!PLATFORM.test(platform)) {
    return fail(`does not start with a platform name (lower-case letters, such as slack).`);
  }
  const id = rest[rest.length - 1] ?? "";
  if (!ID.test(id)) {
    return fail(
      `has no valid id after the platform (letters, digits, ".", "_", "@", "-"; at most 128).`,
    );
  }
  if (rest.length === 2) {
    const word = rest[0] ?? "";
    const kind = Object.hasOwn(KINDS, word) ? KINDS[word] : undefined;
    if (kind === undefined) {
      return fail(
        `names the kind ${JSON.stringify(word)}; the kinds are ${Object.keys(KINDS).join(", ")}.`,
      );
    }
    return { ok: true, entry: { platform, kind, id } };
  }
  return { ok: true, entry: { platform, kind: impliedKind(platform, id), id } };
}

/** Slack's ids carry their kind in the first letter; elsewhere a bare id is a person. */
function impliedKind(platform: string, id: string): AccessEntryKind {
  if (platform !== "slack") return "user";
  if (/^[TE][A-Z0-9]+$/.test(id)) return "workspace";
  if (/^[CGD][A-Z0-9]+$/.test(id)) return "channel";
  return "user";
}

/** The entry in its canonical spelling: `platform:id` for a person, `platform:kind:id` otherwise. */
export function formatAccessEntry(entry: AccessEntry): string {
  return entry.kind === "user"
    ? `${entry.platform}:${entry.id}`
    : `${entry.platform}:${entry.kind}:${entry.id}`;
}

/** Whether `entries` let in this person, workspace or channel. */
export function entriesMatch(
  entries: readonly AccessEntry[],
  where: {
    readonly platform: string;
    readonly workspace: string;
    readonly channel: string;
    readonly user: string;
  },
): boolean {
  return entries.some(
    (e) =>
      e.platform === where.platform &&
      (e.kind === "user"
        ? e.id === where.user
        : e.kind === "workspace"
          ? e.id === where.workspace
          : e.id === where.channel),
  );
}
