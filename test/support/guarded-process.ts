/**
 * A small process with the process guard installed the way `switchyard
 * start` installs it, and the ops server (/healthz, /metrics), for
 * test/integration/process-guard.test.ts. Each line on stdin makes it fail
 * the way a library does, asynchronously:
 *
 * - `throw`: an exception thrown in a timer callback (uncaughtException)
 * - `reject`: a promise rejected with nobody waiting (unhandledRejection)
 * - `reject-value`: the same with a rejection that is not an Error
 *
 * Prints `listening <port>` on stdout once /healthz answers, and `done <n>`
 * after each line it acted on. `GUARD_MAX_ERRORS` and `GUARD_WINDOW_MS` set
 * the storm rule; `DISCORD_TOKEN` is a secret the errors quote.
 *
 * Run: node --import tsx test/support/guarded-process.ts
 */
import { createInterface } from "node:readline";
import { startOpsServer } from "../../src/observability/http.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { installProcessGuard } from "../../src/observability/process-guard.ts";

const env = process.env;
const logger = createLogger({ destination: process.stderr, env });
const metrics = new Metrics();
installProcessGuard({
  logger,
  count: (kind) => metrics.countProcessError(kind),
  ...(env.GUARD_MAX_ERRORS ? { maxErrors: Number(env.GUARD_MAX_ERRORS) } : {}),
  ...(env.GUARD_WINDOW_MS ? { windowMs: Number(env.GUARD_WINDOW_MS) } : {}),
});
const ops = await startOpsServer({ port: 0, host: "127.0.0.1", metrics, ready: () => true });
process.stdout.write(`listening ${ops.port}\n`);

const secret = env.DISCORD_TOKEN ?? "no-token";
let handled = 0;
createInterface({ input: process.stdin }).on("line", (line) => {
  const command = line.trim();
  if (command === "throw") {
    setTimeout(() => {
      throw new Error(`the gateway library choked on a frame for token ${secret}`);
    }, 0);
  } else if (command === "reject") {
    void Promise.reject(new TypeError(`Cannot read properties of undefined (token ${secret})`));
  } else if (command === "reject-value") {
    void Promise.reject({ code: 40060, token: secret });
  } else {
    return;
  }
  // After the failure has surfaced: a timer runs after the rejection's microtasks and the timer above.
  setTimeout(() => {
    handled += 1;
    process.stdout.write(`done ${handled}\n`);
  }, 20);
});
