import { bindHostProblem, type SwitchyardConfig } from "../core/config/index.ts";
import type { Channel } from "../ingress/channel.ts";
import { registerSecret } from "../observability/logger.ts";
import { ENV_PLATFORMS, type EnvPlatform } from "../platforms/env-platforms.ts";
import { StartOptionError } from "../runtime/errors.ts";
import { BOT_ROLES, type BotRole } from "../runtime/options.ts";

/**
 * What `switchyard start` reads from the environment: which platforms run,
 * the model, ports and numbers. Every mistake is a {@link StartOptionError}
 * naming the variable, raised before anything starts.
 */

export { StartOptionError } from "../runtime/errors.ts";
export { modelLimitsFromEnv, providerFromEnv } from "../runtime/provider-env.ts";

/**
 * The platform channels whose credentials are set (see ENV_PLATFORMS). With
 * none, the process runs the console channel instead.
 */
export function platformChannels(
  env: NodeJS.ProcessEnv,
  httpPort: number,
  config: () => SwitchyardConfig,
  platforms: readonly EnvPlatform[] = ENV_PLATFORMS,
): Channel[] {
  const found = platforms.flatMap((p) => p.fromEnv(env, { httpPort, config }) ?? []);
  const listening = found.flatMap((f) => (f.listens ? [f.listens] : []));
  const [first, second] = listening;
  if (first && second) {
    throw new StartOptionError(
      `${first.what} and ${second.what} would both listen on SWITCHYARD_HTTP_PORT. ${capitalized(first.instead)}, ${second.instead}, or run them in separate processes.`,
    );
  }
  for (const { secrets } of found) for (const secret of secrets) registerSecret(secret);
  return found.map((f) => f.channel);
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function portFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new StartOptionError(`${name} must be a port number (0 turns it off), not "${raw}".`);
  }
  return port;
}

/** An address to listen on from `name`, undefined when unset; anything else is a start error naming the fix. */
export function hostFromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return undefined;
  const problem = bindHostProblem(raw);
  if (problem) throw new StartOptionError(`${name}: ${problem}`);
  return raw;
}

export function numberFromEnv<K extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  key: K,
  { zeroTurnsOff = false }: { zeroTurnsOff?: boolean } = {},
): Partial<Record<K, number>> {
  const raw = env[name];
  if (raw === undefined || raw === "") return {};
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroTurnsOff)) {
    throw new StartOptionError(
      zeroTurnsOff
        ? `${name} must be a positive number, or 0 to turn the limit off, not "${raw}".`
        : `${name} must be a positive number, not "${raw}".`,
    );
  }
  return { [key]: value } as Partial<Record<K, number>>;
}

/** The role: `--role`, else its environment twin `SWITCHYARD_ROLE` (the deploy files set it), else all. */
export function roleOf(flag: string | undefined, env: NodeJS.ProcessEnv): BotRole {
  const fromEnv = env.SWITCHYARD_ROLE?.trim() || undefined;
  const role = flag ?? fromEnv ?? "all";
  if (!BOT_ROLES.includes(role as BotRole)) {
    const where = flag === undefined ? "SWITCHYARD_ROLE" : "--role";
    throw new StartOptionError(`${where} takes all, ingress or worker, not "${role}".`);
  }
  return role as BotRole;
}
