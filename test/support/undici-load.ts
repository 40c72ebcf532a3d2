/**
 * A fresh process that loads undici as the tools and attachment downloads do
 * (src/tools/web/undici.ts), for test/integration/undici-global.test.ts:
 * prints, as JSON on stdout, whether the dispatcher that Node's fetch and
 * discord.js's undici 6 read is undici 7's after the load, and what a call
 * through each answers.
 *
 * Run: node --import tsx test/support/undici-load.ts <url>
 */
import { createRequire } from "node:module";
import { plainAgent, undici } from "../../src/tools/web/undici.ts";

const [url = ""] = process.argv.slice(2);

const legacy = () =>
  (globalThis as Record<symbol, unknown>)[Symbol.for("undici.globalDispatcher.1")];
const viaUndici = await (await undici().fetch(url, { dispatcher: plainAgent() })).text();
const undici7 = legacy() instanceof undici().Agent;
const viaNode = await (await fetch(url)).text();
// discord.js's own undici 6, found from @discordjs/rest as discord.js finds it, loaded only
// now (loading it sets its own Agent when none is set); its REST calls `request` with no
// dispatcher, so the key's.
const discordRest = createRequire(import.meta.url).resolve("@discordjs/rest");
const { request: requestV6 } = createRequire(discordRest)("undici") as typeof import("undici");
const viaDiscordsUndici = await (await requestV6(url)).body.text();
process.stdout.write(`${JSON.stringify({ undici7, viaUndici, viaNode, viaDiscordsUndici })}\n`);
await plainAgent().close();
