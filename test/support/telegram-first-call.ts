/**
 * A fresh process that makes one Bot API call through Switchyard's grammY
 * client options, for test/integration/telegram-bot-api-fetch.test.ts:
 * prints, as JSON on stdout, whether undici's global dispatcher was set
 * before the call and after it, and the bot the call answered with.
 *
 * Run: node --import tsx test/support/telegram-first-call.ts <apiRoot> <token>
 */
import { Api } from "grammy";
import { telegramClientOptions } from "../../src/platforms/telegram/api.ts";

const [apiRoot = "", token = ""] = process.argv.slice(2);
const global = globalThis as Record<symbol, unknown>;
const set = () =>
  [1, 2].map((version) => global[Symbol.for(`undici.globalDispatcher.${version}`)] !== undefined);
const before = set();
const me = await new Api(token, telegramClientOptions(apiRoot)).getMe();
process.stdout.write(`${JSON.stringify({ before, after: set(), username: me.username })}\n`);
