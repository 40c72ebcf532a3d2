/**
 * A base for an error class that names itself, so a log line or a stack trace
 * says which error it is (`RedisTopologyError: …`, not `Error: …`). The class
 * keeps its own name and `instanceof`; a subclass of it names itself in turn
 * with `override readonly name = "…"`.
 *
 * @example
 * export class FetchError extends namedError("FetchError") {}
 * new FetchError("the server answered 502").name; // "FetchError"
 */
export function namedError(name: string) {
  return class extends Error {
    override readonly name: string = name;
  };
}
