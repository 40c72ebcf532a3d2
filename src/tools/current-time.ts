import { z } from "zod";
import { defineTool } from "../core/tools/tool.ts";

/** Formats `now` in a time zone; the clock is handed in so tests can pin it. */
export function formatTime(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    weekday: "long",
    timeZoneName: "shortOffset",
  }).formatToParts(now);
  const get = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((p) => p.type === type)?.value ?? "";
  return `${get("weekday")} ${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")}:${get("second")} ${get("timeZoneName")} (${timeZone})`;
}

export function currentTimeTool(clock: () => Date = () => new Date()) {
  return defineTool({
    id: "current_time",
    description:
      "The current date, weekday and time in a time zone. Use it whenever an answer depends on today's date or the time.",
    parameters: z.object({
      timeZone: z
        .string()
        .default("UTC")
        .describe(
          'An IANA time zone such as "Europe/Paris" or "America/New_York". Defaults to UTC.',
        ),
    }),
    execute: ({ timeZone }) => {
      try {
        return formatTime(clock(), timeZone);
      } catch {
        return `"${timeZone}" is not a time zone I know. Use an IANA name such as "Europe/Paris" or "Asia/Tokyo".`;
      }
    },
  });
}
