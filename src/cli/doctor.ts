import { parseArgs } from "node:util";
import { redactSecrets, registeredSecrets, secretsFromEnv } from "../observability/secrets.ts";
import { configPath } from "../runtime/config-file.ts";
import { checkConfigFile } from "./doctor/config.ts";
import { checkDiscord } from "./doctor/discord.ts";
import { type DoctorContext, type Finding, formatFinding, guarded } from "./doctor/finding.ts";
import { checkMcpServers } from "./doctor/mcp.ts";
import { checkModel } from "./doctor/model.ts";
import { checkPlatformForRole } from "./doctor/platform.ts";
import { checkRedisAnswers } from "./doctor/redis.ts";
import { checkSlack } from "./doctor/slack.ts";
import { checkTelegram } from "./doctor/telegram.ts";
import { checkWebSearch } from "./doctor/web-search.ts";
import { roleOf } from "./platforms.ts";

const HELP = `Usage: switchyard doctor [--config FILE] [--role all|ingress|worker]

Checks what a deployment needs, one line each: ok, or the problem and how to
fix it. The config file parses; Redis answers (version, standalone, cluster or
Sentinel, the queue's wait lists); the model answers a tiny request and takes
stream_options, prompt_cache_key and tools; each configured platform's token
is accepted (Slack: with every scope the bot uses, and the app token in Socket
Mode; Telegram: the webhook Telegram has matches; Discord: the Message Content
intent is on); each MCP server connects; the web search provider answers.
Reads the same environment as start. Exit code 0 when every check passes, 1
otherwise. Tokens are never printed.

Options:
  --config FILE   The config file (default: $SWITCHYARD_CONFIG, else ./switchyard.yaml)
  --role ROLE     The role start will run (default: $SWITCHYARD_ROLE, else all): an
                  ingress needs a platform configured
  -h, --help      This help`;

/** How long one check waits on a server before it counts as not answering. */
const CHECK_TIMEOUT_MS = 10_000;

export interface DoctorIO {
  readonly env: NodeJS.ProcessEnv;
  readonly print: (line: string) => void;
  readonly timeoutMs?: number;
}

/** `switchyard doctor`: every check, in a fixed order, then a summary line; 0 when all pass. */
export async function runDoctorCommand(argv: string[], io: DoctorIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: "string" },
      role: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    io.print(HELP);
    return 0;
  }
  const role = roleOf(values.role, io.env);
  const file = configPath(values.config, io.env);
  const { config, findings: configFindings } = checkConfigFile(file);
  const context: DoctorContext = {
    env: io.env,
    config,
    timeoutMs: io.timeoutMs ?? CHECK_TIMEOUT_MS,
  };
  // Independent servers: asked at once, printed in a fixed order.
  const groups = await Promise.all([
    guarded("redis", () => checkRedisAnswers(context)),
    guarded("model", () => checkModel(context)),
    guarded("slack", () => checkSlack(context)),
    guarded("telegram", () => checkTelegram(context)),
    guarded("discord", () => checkDiscord(context)),
    guarded("mcp", () => checkMcpServers(context, file)),
    guarded("search", () => checkWebSearch(context)),
  ]);
  const findings: Finding[] = [...configFindings, ...groups.flat()];
  findings.push(...checkPlatformForRole(io.env, role, config));
  // Checks name variables, not values; this is the net under that rule (a library's error text).
  const secrets = secretsFromEnv(io.env);
  for (const finding of findings) {
    io.print(registeredSecrets.redact(redactSecrets(formatFinding(finding), secrets)));
  }
  const problems = findings.filter((finding) => !finding.ok).length;
  io.print(
    problems === 0
      ? `All ${findings.length} checks passed.`
      : `${problems} of ${findings.length} checks found a problem.`,
  );
  return problems === 0 ? 0 : 1;
}
