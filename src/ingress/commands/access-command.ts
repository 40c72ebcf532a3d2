import type { Actor, CommandPolicy } from "../../core/commands/index.ts";
import { formatAccessEntry, type SwitchyardConfig } from "../../core/config/index.ts";
import { type AccessStore, MAX_PENDING_REQUESTS, type PendingPage } from "../../store/index.ts";
import { readPairingCode } from "../access/pairing-code.ts";
import { duration } from "../access/refusals.ts";

/**
 * `/access approve <code>`, `/access list [page]` and `/access revoke <platform:user>`:
 * who may talk to the bot, changed by people only (rule 8), never by the
 * model. Approving takes an owner; listing and revoking an owner or a
 * configured admin. A platform's own admins do not count here: anyone who
 * makes a Telegram group administers it, and an approval opens every DM.
 */
export const ACCESS_USAGE =
  "Usage: /access approve CODE (owners), /access list [PAGE], /access revoke PLATFORM:USER (owners and admins).";

/** What the command needs: the approvals in Redis and who owns the bot. */
export interface AccessCommandDeps {
  readonly access: AccessStore;
  readonly config: () => SwitchyardConfig;
  readonly now?: () => number;
}

export async function handleAccessCommand(
  line: string,
  actor: Actor,
  policy: CommandPolicy,
  deps: AccessCommandDeps,
): Promise<string> {
  const [, verb = "", ...args] = line.trim().split(/\s+/);
  const owner = policy.owners.includes(actor.id);
  const admin = owner || policy.admins.includes(actor.id);
  const now = (deps.now ?? Date.now)();
  switch (verb.toLowerCase()) {
    case "approve": {
      if (!owner)
        return "Only the bot's owners (permissions.owners in the config) can approve a pairing code.";
      return (await approve(args.join(""), actor.id, now, deps.access)).text;
    }
    case "list":
      if (!admin)
        return "Only the bot's owners and admins (permissions: in the config) can list who is let in.";
      return (await list(deps, args[0])).text;
    case "revoke": {
      if (!admin)
        return "Only the bot's owners and admins (permissions: in the config) can revoke access.";
      return (await revoke(args[0] ?? "", deps)).text;
    }
    default:
      return ACCESS_USAGE;
  }
}

/** What a change did, as the shell and chat both say it; `ok` is false when nothing changed. */
export interface AccessChange {
  readonly ok: boolean;
  readonly text: string;
}

export async function approve(
  typed: string,
  by: string,
  now: number,
  access: AccessStore,
): Promise<AccessChange> {
  const code = readPairingCode(typed);
  if (code === undefined) {
    return {
      ok: false,
      text: `${JSON.stringify(typed)} is not a pairing code: codes are 8 letters and digits, e.g. /access approve K7QM2XPA.`,
    };
  }
  const request = await access.approve(code, by, now);
  if (!request) {
    return {
      ok: false,
      text: `No live pairing code ${code}: it was used already, expired, or mistyped. Ask the person to write to the bot again for a new one.`,
    };
  }
  return {
    ok: true,
    text: `Approved ${describePerson(request.user, request.name)}: their messages are answered from now on. Undo with /access revoke ${request.user}.`,
  };
}

/** How many waiting people one `/access list` shows: one short reply, whatever the crowd. */
export const PENDING_PAGE_SIZE = 10;

/**
 * Who is let in and, newest first, one page of who is waiting. `page` is
 * what followed `list` (1 when nothing did); `command` is how the person
 * asks for another page where they are (`/access list`, `switchyard access list`).
 */
export async function list(
  deps: AccessCommandDeps,
  typedPage = "",
  command = "/access list",
): Promise<AccessChange> {
  const page = typedPage === "" ? 1 : Number(typedPage);
  if (!Number.isSafeInteger(page) || page < 1) {
    return {
      ok: false,
      text: `${JSON.stringify(typedPage)} is not a page number: e.g. ${command} 2.`,
    };
  }
  const offset = (page - 1) * PENDING_PAGE_SIZE;
  const [approvals, pending] = await Promise.all([
    page === 1 ? deps.access.approvals() : [],
    deps.access.pending(offset, PENDING_PAGE_SIZE),
  ]);
  const waiting = waitingPage(pending, page, command);
  if (page > 1) return { ok: true, text: waiting };
  const config = deps.config();
  const lines = [
    `Direct messages: ${config.access.dm}; groups: ${config.access.groups}.`,
    `Allowed by the config: ${config.access.allow.map(formatAccessEntry).join(", ") || "nobody"}.`,
    approvals.length === 0
      ? "Approved by pairing: nobody."
      : `Approved by pairing:\n${approvals.map((a) => `- ${describePerson(a.user, a.name)}, by ${a.by} on ${new Date(a.at).toISOString().slice(0, 10)}`).join("\n")}`,
    waiting,
  ];
  return { ok: true, text: lines.join("\n") };
}

/** The waiting part of `/access list`: all of it when it fits one page, else a count, a page and the next page's command. */
function waitingPage(pending: PendingPage, page: number, command: string): string {
  const { total, requests, now } = pending;
  if (total === 0) return "Waiting for approval: nobody.";
  const rows = requests.map(
    (p) => `- ${describePerson(p.user, p.name)}, code expires in ${duration(p.expiresAt - now)}`,
  );
  if (total <= PENDING_PAGE_SIZE && page === 1) return `Waiting for approval:\n${rows.join("\n")}`;
  const pages = Math.ceil(total / PENDING_PAGE_SIZE);
  if (rows.length === 0)
    return `Waiting for approval: ${total}; page ${page} is past the last, ${pages}.`;
  const full =
    total >= MAX_PENDING_REQUESTS
      ? ` The list keeps the newest ${MAX_PENDING_REQUESTS}; an older code still works when its person gives it to you.`
      : "";
  const next = page < pages ? `\nNext: ${command} ${page + 1}.` : "";
  return `Waiting for approval: ${total}, newest first, page ${page} of ${pages}:${full}\n${rows.join("\n")}${next}`;
}

export async function revoke(user: string, deps: AccessCommandDeps): Promise<AccessChange> {
  if (!/^[a-z][a-z0-9_-]*:[A-Za-z0-9._@-]{1,128}$/.test(user)) {
    return {
      ok: false,
      text: "Name the person platform:user, e.g. /access revoke telegram:123456789 (see /access list).",
    };
  }
  if (await deps.access.revoke(user)) {
    return {
      ok: true,
      text: `Revoked ${user}: they need a new pairing code to be answered again.`,
    };
  }
  const inConfig = deps.config().access.allow.some((e) => formatAccessEntry(e) === user);
  return {
    ok: false,
    text: inConfig
      ? `${user} is allowed by the config file (access.allow), not by pairing: remove them there.`
      : `${user} was not approved by pairing; nothing changed.`,
  };
}

function describePerson(user: string, name: string | undefined): string {
  return name ? `${name} (${user})` : user;
}
