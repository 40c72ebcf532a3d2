import { Api } from "grammy";
import { telegramClientOptions, trimRoot } from "../../platforms/telegram/api.ts";
import type { TelegramAccount } from "../../platforms/telegram/config-section.ts";
import {
  resolveTelegramMode,
  telegramAccountOptions,
  telegramOptionsFromEnv,
} from "../../platforms/telegram/settings.ts";
import { type DoctorContext, type Finding, ok, problem, reasonOf, within } from "./finding.ts";

/** A webhook URL without its path: the path may hold a secret. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(not a URL)";
  }
}

/** What the doctor asks Telegram with, and the webhook the configured mode wants (none for long polling). */
interface TelegramSetup {
  /** `telegram`, or `telegram@sales` for an account of `telegram.accounts`. */
  readonly check: string;
  /** Where the token comes from, as a fix names it. */
  readonly source: string;
  readonly token: string;
  readonly apiRoot: string | undefined;
  readonly wanted: string | undefined;
}

/** The setup from the environment and the config; a finding when either is wrong; none when Telegram is not set up. */
function telegramSetup(context: DoctorContext): TelegramSetup | Finding | undefined {
  const { env, config } = context;
  try {
    const options = telegramOptionsFromEnv(env, () => config, 0);
    if (!options) return undefined;
    const root = options.apiRoot ?? config.telegram.apiRoot;
    const mode = resolveTelegramMode(options, config.telegram);
    return {
      check: "telegram",
      source: "TELEGRAM_BOT_TOKEN",
      token: options.token,
      apiRoot: root ? trimRoot(root) : undefined,
      wanted: mode.kind === "webhook" ? mode.url : undefined,
    };
  } catch (error) {
    return problem("telegram", reasonOf(error), "fix the variable or key it names");
  }
}

/** One bot of `telegram.accounts`: its token filled from the environment, its own webhook or none. */
function accountSetup(context: DoctorContext, account: TelegramAccount): TelegramSetup | Finding {
  const { env, config } = context;
  const check = `telegram@${account.id}`;
  try {
    const alone = { ...config, telegram: { ...config.telegram, accounts: [account] } };
    const [options] = telegramAccountOptions(env, () => alone, 0);
    if (!options) throw new Error(`account ${account.id} was not read`);
    const root = options.apiRoot ?? config.telegram.apiRoot;
    return {
      check,
      source: `the variable in telegram.accounts ${account.id}'s token`,
      token: options.token,
      apiRoot: root ? trimRoot(root) : undefined,
      wanted: options.webhookUrl,
    };
  } catch (error) {
    return problem(check, reasonOf(error), "fix the variable or key it names");
  }
}

function getMeFailure(error: unknown, setup: TelegramSetup): Finding {
  const { check, apiRoot } = setup;
  const code = (error as { error_code?: number }).error_code;
  return code === 401 || code === 404
    ? problem(
        check,
        `Telegram refuses the bot token (${code})`,
        `copy the token @BotFather gave for this bot into ${setup.source}`,
      )
    : problem(
        check,
        `getMe failed: ${reasonOf(error)}`,
        apiRoot ? "check TELEGRAM_API_ROOT" : "check that this machine reaches api.telegram.org",
      );
}

/** Whether the webhook Telegram has on record (`registered`, "" for none) fits the one the mode wants. */
function webhookFinding(check: string, registered: string, wanted: string | undefined): Finding {
  if (wanted === undefined) {
    return registered === ""
      ? ok(check, "long polling: no webhook registered")
      : problem(
          check,
          `a webhook at ${originOf(registered)} is registered, but TELEGRAM_WEBHOOK_URL is not set: the ingress deletes it to poll, and another deployment using it would stop receiving`,
          "give each deployment a bot of its own, or set TELEGRAM_WEBHOOK_URL to run by webhook",
        );
  }
  if (registered === wanted) {
    return ok(check, `webhook registered at ${originOf(wanted)}, as configured`);
  }
  if (registered === "") {
    return ok(
      check,
      `webhook at ${originOf(wanted)} not registered yet: the ingress registers it when it starts`,
    );
  }
  return problem(
    check,
    `Telegram sends updates to ${originOf(registered)}, not the configured ${originOf(wanted)}`,
    "start the ingress (it registers TELEGRAM_WEBHOOK_URL), and make sure no other deployment uses this bot",
  );
}

/**
 * The bot token is accepted (`getMe`), and the webhook Telegram has on
 * record (`getWebhookInfo`) fits the configured mode: the configured URL for
 * webhook mode, none for long polling.
 */
export async function checkTelegram(context: DoctorContext): Promise<Finding[]> {
  const main = telegramSetup(context);
  const setups = [
    ...(main ? [main] : []),
    ...(context.config.telegram.accounts ?? []).map((account) => accountSetup(context, account)),
  ];
  const found = await Promise.all(
    setups.map((setup) => ("token" in setup ? checkBot(context, setup) : [setup])),
  );
  return found.flat();
}

/** One bot: its token is accepted, and its webhook fits its mode. */
async function checkBot(context: DoctorContext, setup: TelegramSetup): Promise<Finding[]> {
  const { check, token, apiRoot, wanted } = setup;
  const { timeoutMs } = context;
  const api = new Api(token, telegramClientOptions(apiRoot));
  let me: Awaited<ReturnType<Api["getMe"]>>;
  try {
    me = await within(timeoutMs, "Telegram's getMe", api.getMe());
  } catch (error) {
    return [getMeFailure(error, setup)];
  }
  const found = ok(check, `bot @${me.username} (${me.id})`);
  let info: Awaited<ReturnType<Api["getWebhookInfo"]>>;
  try {
    info = await within(timeoutMs, "Telegram's getWebhookInfo", api.getWebhookInfo());
  } catch (error) {
    return [
      found,
      problem(
        check,
        `getWebhookInfo failed: ${reasonOf(error)}`,
        "run doctor again; if it persists, check the Bot API server",
      ),
    ];
  }
  return [found, webhookFinding(check, info.url ?? "", wanted)];
}
