import type { IncomingMessage } from "node:http";

/** A refusal as a hook's caller reads it: the status, a code, what is wrong and how to send it right. */
export interface HookRefusal {
  readonly status: number;
  readonly error: string;
  readonly problem: string;
  readonly fix: string;
}

/** The body as JSON, or why not. */
export function jsonBody(
  contentType: string | undefined,
  body: Uint8Array,
): { kind: "json"; value: unknown } | (HookRefusal & { kind: "refused" }) {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type !== "" && type !== "application/json" && !type.endsWith("+json")) {
    return {
      kind: "refused",
      status: 415,
      error: "not_json",
      problem: `the body is ${type}, and hooks read JSON`,
      fix: 'send Content-Type: application/json (GitHub: Content type "application/json"); to pass text, send it as a JSON string field such as {"text": "..."}',
    };
  }
  try {
    return { kind: "json", value: JSON.parse(Buffer.from(body).toString("utf8")) as unknown };
  } catch (error) {
    return {
      kind: "refused",
      status: 400,
      error: "not_json",
      problem: `the body is not JSON (${(error as Error).message.slice(0, 120)})`,
      fix: 'send a JSON body such as {"summary": "3 tests failed"}',
    };
  }
}

/**
 * The request's body, or undefined once it is over `max` bytes (said by
 * Content-Length or found reading). Reading stops there without destroying
 * the request, so the 413 can still be answered.
 */
export function readCapped(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) return void chunks.push(chunk);
      req.off("data", onData).off("end", onEnd).off("error", reject);
      req.pause();
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on("data", onData).once("end", onEnd).once("error", reject);
  });
}
