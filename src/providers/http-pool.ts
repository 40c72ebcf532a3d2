import { createRequire } from "node:module";
import type { Agent, Dispatcher } from "undici";

/** undici's request API, called on a dispatcher: what `Dispatcher.prototype.request` is. */
export type RequestFn = (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/** A keep-alive pool of connections and undici's request API over it. */
export interface HttpPool {
  readonly agent: Agent;
  readonly request: RequestFn;
}

/**
 * A keep-alive pool for a client that calls one kind of server a great deal
 * (the Bot API, the model), on undici's request API: a call costs far less
 * CPU than through `fetch`, whose WHATWG streams and Request/Response
 * objects the caller does not need.
 *
 * undici's two modules are required by path rather than through its entry
 * point, which would also set undici 7's Agent as the process's global
 * dispatcher when none is set yet: the one discord.js's undici 6 and Node's
 * own fetch then send through, and discord.js's uploads go astray on it
 * (src/testing/fakes/multipart.ts). A Telegram bot's first call, or the
 * first model call, must not change how a Discord bot in the same process
 * posts. The two also load in a third of the time and half the memory of
 * the whole package. undici is pinned (package.json); the tests of each
 * client run every call it makes through them.
 *
 * Call it when the first request is made, not at import, so a process that
 * has not made one has not paid for undici.
 */
export function httpPool(options: Agent.Options): HttpPool {
  const require = createRequire(import.meta.url);
  const AgentClass = require("undici/lib/dispatcher/agent.js") as typeof Agent;
  const request = require("undici/lib/api/api-request.js") as RequestFn;
  return { agent: new AgentClass(options), request };
}
