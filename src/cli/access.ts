import { parseArgs } from "node:util";
import { approve, list, revoke } from "../ingress/commands/access-command.ts";
import { LOCAL_REDIS_URL, RedisFactory } from "../ops/redis/redis.ts";
import { EMPTY_CONFIG, parseConfig } from "../platforms/config.ts";
import { configPath } from "../runtime/config-file.ts";
import { createStore } from "../store/index.ts";
import { topologyFrom } from "../store/redis/redis-topology.ts";
import type { CliEnv } from "./tools.ts";

const HELP = `Usage: switchyard access <approve CODE | list [PAGE] | revoke PLATFORM:USER> [options]

Who may talk to the bot: approve a pairing code someone got from the bot in
a direct message, list who is let in and who is waiting (the newest 10, then
page by page: list 2, list 3...), or revoke an approval. Works on the Redis the bot uses (REDIS_URL, or the config's redis:).

Options:
  --config FILE        The config file (default: $SWITCHYARD_CONFIG, else ./switchyard.yaml if present)
  -h, --help           This help

Environment:
  REDIS_URL, REDIS_CLUSTER_NODES, REDIS_SENTINELS   Which Redis (as for switchyard start)
  SWITCHYARD_PREFIX                                 Redis key prefix (default sy)`;

/** A shell is the machine's operator: approvals from here are recorded as `cli`. */
const SHELL = "cli";

export async function runAccessCommand(argv: string[], io: CliEnv): Promise<number> {
  const out = io.stdout ?? ((t: string) => process.stdout.write(t));
  const err = io.stderr ?? ((t: string) => process.stderr.write(t));
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      config: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const [verb, ...args] = positionals;
  if (values.help || verb === undefined) {
    out(`${HELP}\n`);
    return values.help ? 0 : 2;
  }
  const argsOk = verb === "list" ? args.length <= 1 : args.length === 1;
  if (!["approve", "list", "revoke"].includes(verb) || !argsOk) {
    err(
      `switchyard access: expected approve CODE, list [PAGE] or revoke PLATFORM:USER.\n\n${HELP}\n`,
    );
    return 2;
  }
  const env = io.env as NodeJS.ProcessEnv;
  const file = configPath(values.config, env);
  const config = file === undefined ? EMPTY_CONFIG : parseConfig(io.readFile(file), file);
  const topology = topologyFrom(env, config.redis);
  // Never start a Redis of our own here: an empty one would know no codes.
  const factory = new RedisFactory(
    topology.kind === "single" && !topology.url ? { ...topology, url: LOCAL_REDIS_URL } : topology,
  );
  const redis = factory.create("state", { maxRetriesPerRequest: 1 });
  try {
    const store = createStore(redis, { prefix: env.SWITCHYARD_PREFIX ?? "sy" });
    const deps = { access: store.access, config: () => config };
    const now = Date.now();
    const arg = args[0] ?? "";
    const result =
      verb === "approve"
        ? await approve(arg, SHELL, now, store.access)
        : verb === "list"
          ? await list(deps, arg, "switchyard access list")
          : await revoke(arg, deps);
    out(`${result.text}\n`);
    return result.ok ? 0 : 1;
  } finally {
    redis.disconnect();
  }
}
