import { type Logger, LogLevel, WebClient } from "@slack/web-api";
import type { SlackAccount } from "../../platforms/slack/config-section.ts";
import { missingSlackScopes, requiredSlackScopes } from "../../platforms/slack/scopes.ts";
import { type SlackChannelOptions, slackAccountOptions } from "../../platforms/slack/settings.ts";
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
  const { env } = context;
  const token = env.SLACK_BOT_TOKEN;
  const findings: Finding[] = [];
  const apps: Promise<Finding[]>[] = [];
  if (token) {
    if (!env.SLACK_SIGNING_SECRET && !env.SLACK_APP_TOKEN) {
      findings.push(
        problem(
          "slack",
          "SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (Events API) nor SLACK_APP_TOKEN (Socket Mode) is, so start refuses to run",
          "set SLACK_SIGNING_SECRET (Basic Information -> Signing Secret) or SLACK_APP_TOKEN",
        ),
      );
    }
    apps.push(
      checkSlackApp(context, {
        check: "slack",
        botToken: token,
        botSource: "SLACK_BOT_TOKEN",
        ...(env.SLACK_APP_TOKEN ? { appToken: env.SLACK_APP_TOKEN } : {}),
        appSource: "SLACK_APP_TOKEN",
      }),
    );
  }
  // Each app of `slack.accounts` is checked as the default one is.
  for (const account of context.config.slack.accounts ?? []) {
    apps.push(checkAccount(context, account));
  }
  return [...findings, ...(await Promise.all(apps)).flat()];
}

/** One app of the deployment, as the doctor asks Slack about it. */
interface SlackApp {
  /** `slack`, or `slack@eng` for an account of `slack.accounts`. */
  readonly check: string;
  readonly botToken: string;
  /** Where the bot token comes from, as a fix names it. */
  readonly botSource: string;
  readonly appToken?: string;
  readonly appSource: string;
}

/** An app of `slack.accounts`: its credentials filled from the environment, then checked as the default app is. */
async function checkAccount(context: DoctorContext, account: SlackAccount): Promise<Finding[]> {
  const check = `slack@${account.id}`;
  const { config, env } = context;
  let options: SlackChannelOptions | undefined;
  try {
    const alone = { ...config, slack: { ...config.slack, accounts: [account] } };
    [options] = slackAccountOptions(env, () => alone, 0);
  } catch (error) {
    return [problem(check, reasonOf(error), "set the variable it names")];
  }
  if (!options) return [];
  const where = `the variable in slack.accounts ${account.id}'s`;
  return checkSlackApp(context, {
    check,
    botToken: options.botToken,
    botSource: `${where} bot_token`,
    ...(options.appToken ? { appToken: options.appToken } : {}),
    appSource: `${where} app_token`,
  });
}

/** The app's bot token is accepted, has the scopes, and its app token (Socket Mode) opens a connection. */
async function checkSlackApp(context: DoctorContext, app: SlackApp): Promise<Finding[]> {
  const { env, timeoutMs } = context;
  const { check } = app;
  const findings: Finding[] = [];
  const client = new WebClient(app.botToken, {
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
            check,
            `Slack refuses the bot token (${code})`,
            `copy the Bot User OAuth Token (xoxb-...) from the app's OAuth & Permissions page into ${app.botSource}`,
          )
        : problem(
            check,
            `auth.test failed: ${reasonOf(error)}`,
            env.SLACK_API_URL ? "check SLACK_API_URL" : "check that this machine reaches slack.com",
          ),
    );
    return findings;
  }
  findings.push(
    ok(
      check,
      `bot ${auth.user ?? "?"} (${auth.user_id ?? "?"}) in workspace ${auth.team ?? "?"} (${auth.team_id ?? "?"})`,
    ),
  );
  if (app.appToken) findings.push(await checkAppToken(env, app, timeoutMs));
  const granted = auth.response_metadata?.scopes;
  if (granted === undefined) {
    findings.push(
      problem(
        check,
        "Slack did not say which scopes the token has (no x-oauth-scopes header)",
        `check by hand that the app has ${requiredSlackScopes().join(", ")}`,
      ),
    );
    return findings;
  }
  const missing = missingSlackScopes(granted);
  findings.push(
    missing.length === 0
      ? ok(check, `the token has every scope the bot uses (${requiredSlackScopes().length})`)
      : problem(
          check,
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
async function checkAppToken(
  env: NodeJS.ProcessEnv,
  app: SlackApp,
  timeoutMs: number,
): Promise<Finding> {
  const client = new WebClient(app.appToken, {
    ...(env.SLACK_API_URL ? { slackApiUrl: env.SLACK_API_URL } : {}),
    retryConfig: { retries: 0 },
    timeout: timeoutMs,
    logger: quiet,
  });
  try {
    await within(timeoutMs, "Slack's apps.connections.open", client.apps.connections.open());
    return ok(app.check, "the app token opens a Socket Mode connection");
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    return problem(
      app.check,
      `Slack refuses the app token (${code ?? reasonOf(error)})`,
      `create an app-level token with connections:write (Basic Information -> App-Level Tokens) and put it in ${app.appSource}; Socket Mode must be on`,
    );
  }
}
