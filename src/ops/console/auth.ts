import { timingSafeEqual } from "node:crypto";

/** The realm browsers show when they ask for the console's password. */
export const CONSOLE_REALM = "Switchyard console";

/**
 * Whether a request's `Authorization` header carries the console token: as
 * `Bearer <token>`, or as the password of basic auth (any user name). The
 * comparison takes the same time however much of the token matches.
 */
export function consoleAuthorized(header: string | undefined, token: string): boolean {
  if (!header || token === "") return false;
  const [scheme, value = ""] = header.trim().split(/\s+/, 2);
  let given: string | undefined;
  if (scheme?.toLowerCase() === "bearer") given = value;
  else if (scheme?.toLowerCase() === "basic") {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    given = colon === -1 ? undefined : decoded.slice(colon + 1);
  }
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
