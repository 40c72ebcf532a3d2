import { DateTime } from "luxon";

/**
 * An instant as a person in `zone` reads it, with UTC beside it so the
 * model (and anyone in another zone) can check the conversion:
 * `Tue 2026-12-01 09:00 Europe/Berlin (UTC+01:00) = 2026-12-01 08:00 UTC`.
 * Seconds show only when they are not zero. English and fixed, so the same
 * instant always reads the same.
 */
export function describeInstant(ms: number, zone: string): string {
  const local = DateTime.fromMillis(ms, { zone }).setLocale("en");
  const utc = local.toUTC();
  const clock = local.second === 0 ? "HH:mm" : "HH:mm:ss";
  const there = `${local.toFormat(`ccc yyyy-LL-dd ${clock}`)} ${zone}`;
  if (zone === "UTC") return there;
  return `${there} (UTC${local.toFormat("ZZ")}) = ${utc.toFormat(`yyyy-LL-dd ${clock}`)} UTC`;
}
