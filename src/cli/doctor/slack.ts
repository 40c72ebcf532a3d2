import { type Logger, LogLevel, WebClient } from "@slack/web-api";
import { missingSlackScopes, requiredSlackScopes } from "../../platforms/slack/scopes.ts";
import { type DoctorContext, type Finding, ok, problem, reasonOf, within } from "./finding.ts";

/** The WebClient logs failed requests itself; doctor reports them in its own line. */
const quiet: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

const REINSTALL =
  "add them under OAuth & Permissions -> Scopes (or create the app from deploy/slack/manifest.yaml), then reinstall the app to the workspace";

/** What the assistant pane needs besides its scope: the app must offer the pane at all. */
const ASSISTANT_VIEW =
  "; for assistant:write, also turn on Agents & AI Apps (features.assistant_view in the manifest) and subscribe to assistant_thread_started and assistant_thread_context_changed";

/**
 * The bot token is accepted (`auth.test`), and the scopes Slack says it has
 * (the `x-oauth-scopes` header of every answer) cover what the channel calls.
 */
export async function checkSlack(context: DoctorContext): Promise<Finding[]> {
  const { env, timeoutMs } = context;
  const token = env.SLACK_BOT_TOKEN;
  if (!token) return [];
  const findings: Finding[] = [];
  if (!env.SLACK_SIGNING_SECRET && !env.SLACK_APP_TOKEN) {
    findings.push(
      problem(
        "slack",
        "SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (Events API) nor SLACK_APP_TOKEN (Socket Mode) is, so start refuses to run",
        "set SLACK_SIGNING_SECRET (Basic Information -> Signing Secret) or SLACK_APP_TOKEN",
      ),
    );
  }
  const client = new WebClient(token, {
    ...(env.SLACK_API_URL ? { slackApiUrl: env.SLACK_API_URL } : {}),
    retryConfig: { retries: 0 },
    timeout: timeoutMs,
    rejectRateLimitedCalls: true,
    logger: quiet,
  });
  let auth: Awaited<ReturnType<WebClient["auth"]["test"]>>;
  try {
    auth = await within(timeoutMs, "Slack's auth.test", client.auth.test());
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    const refused =
      code === "invalid_auth" ||
      code === "not_authed" ||
      code === "account_inactive" ||
      code === "token_revoked";
    findings.push(
      refused
        ? problem(
            "slack",
            `Slack refuses the bot token (${code})`,
            "copy the Bot User OAuth Token (xoxb-...) from the app's OAuth & Permissions page into SLACK_BOT_TOKEN",
          )
        : problem(
            "slack",
            `auth.test failed: ${reasonOf(error)}`,
            env.SLACK_API_URL ? "check SLACK_API_URL" : "check that this machine reaches slack.com",
          ),
    );
    return findings;
  }
  findings.push(
    ok(
      "slack",
      `bot ${auth.user ?? "?"} (${auth.user_id ?? "?"}) in workspace ${auth.team ?? "?"} (${auth.team_id ?? "?"})`,
    ),
  );
  if (env.SLACK_APP_TOKEN) findings.push(await checkAppToken(env, timeoutMs));
  const granted = auth.response_metadata?.scopes;
  if (granted === undefined) {
    findings.push(
      problem(
        "slack",
        "Slack did not say which scopes the token has (no x-oauth-scopes header)",
        `check by hand that the app has ${requiredSlackScopes().join(", ")}`,
      ),
    );
    return findings;
  }
  const missing = missingSlackScopes(granted);
  findings.push(
    missing.length === 0
      ? ok("slack", `the token has every scope the bot uses (${requiredSlackScopes().length})`)
      : problem(
          "slack",
          `the token lacks ${missing.map((m) => `${m.scope} (for ${m.for.join(", ")})`).join("; ")}`,
          missing.some((m) => m.scope === "assistant:write")
            ? REINSTALL + ASSISTANT_VIEW
            : REINSTALL,
        ),
  );
  return findings;
}

/**
 * Socket Mode's app-level token opens a connection (`apps.connections.open`):
 * the ticket it hands out is single-use and simply expires.
 */
async function checkAppToken(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Finding> {
  const client = new WebClient(env.SLACK_APP_TOKEN, {
    ...(env.SLACK_API_URL ? { slackApiUrl: env.SLACK_API_URL } : {}),
    retryConfig: { retries: 0 },
    timeout: timeoutMs,
    logger: quiet,
  });
  try {
    await within(timeoutMs, "Slack's apps.connections.open", client.apps.connections.open());
    return ok("slack", "the app token opens a Socket Mode connection");
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    return problem(
      "slack",
      `Slack refuses the app token (${code ?? reasonOf(error)})`,
      "create an app-level token with connections:write (Basic Information -> App-Level Tokens) and put it in SLACK_APP_TOKEN; Socket Mode must be on",
    );
  }
}
