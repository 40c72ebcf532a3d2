import type { SwitchyardConfig } from "../../core/config/index.ts";
import { PLATFORM_VARIABLES } from "../../platforms/env-platforms.ts";
import type { BotRole } from "../../runtime/options.ts";
import { type Finding, ok, problem } from "./finding.ts";

/** The variables whose presence means `switchyard start` runs that platform. */
const PLATFORM_TOKENS = ["SLACK_BOT_TOKEN", "TELEGRAM_BOT_TOKEN", "DISCORD_TOKEN"] as const;

/**
 * What runs when no platform is configured, by role: the console for `all`,
 * nothing a worker needs, and for an ingress a refusal to start, the same
 * one `switchyard start` gives. Nothing when a platform is configured: its
 * own check speaks for it.
 */
export function checkPlatformForRole(
  env: NodeJS.ProcessEnv,
  role: BotRole,
  config?: SwitchyardConfig,
): Finding[] {
  if (PLATFORM_TOKENS.some((name) => env[name])) return [];
  // A bot listed under a platform's `accounts:` runs that platform without its variable.
  const accounts =
    config && [config.slack, config.discord, config.telegram].some((p) => p.accounts?.length);
  if (accounts) return [];
  if (role === "ingress") {
    return [
      problem(
        "platform",
        "no platform configured, and an ingress runs only the platforms' channels: start refuses to run",
        `set ${PLATFORM_VARIABLES}, or run this process with role all (the console)`,
      ),
    ];
  }
  if (role === "worker")
    return [ok("platform", "no platform configured: a worker runs turns only")];
  return [ok("platform", "no platform configured: start runs the console channel")];
}
