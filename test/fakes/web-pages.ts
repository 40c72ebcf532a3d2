/**
 * A local web site for `fetch_url`: each path answers a scripted page, and
 * every hit is counted, so a test can prove a refused address was never
 * contacted (`site.hits("/secret") === 0`).
 *
 * @example
 * const site = await startFakeSite({
 *   "/": page("<h1>Hello</h1>"),
 *   "/old": redirect("/"),
 * });
 */
import { gzipSync } from "node:zlib";
import { clientGone, listenLocal } from "../../src/testing/fakes/local-server.ts";

export type Page =
  | {
      readonly kind: "body";
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: string | Buffer;
    }
  /** Headers, then this chunk over and over until the client stops reading. */
  | { readonly kind: "endless"; readonly type: string; readonly chunk: string }
  /** Never answers; resolves `site.abandoned` when the client gives up. */
  | { readonly kind: "hang" };

export function page(html: string, status = 200): Page {
  return {
    kind: "body",
    status,
    headers: { "content-type": "text/html; charset=utf-8" },
    body: html,
  };
}

export function typed(type: string, body: string | Buffer, status = 200): Page {
  return { kind: "body", status, headers: { "content-type": type }, body };
}

/** A page sent gzip-compressed, as most real servers do. */
export function gzipped(html: string): Page {
  return {
    kind: "body",
    status: 200,
    headers: { "content-type": "text/html", "content-encoding": "gzip" },
    body: gzipSync(html),
  };
}

export function redirect(location: string, status = 302): Page {
  return { kind: "body", status, headers: { location }, body: "" };
}

export interface FakeSite {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  hits(path: string): number;
  /** Every path requested, in order. */
  readonly log: string[];
  /** Resolves when a client gives up on a `hang` page. */
  readonly abandoned: Promise<void>;
  close(): Promise<void>;
}

export async function startFakeSite(pages: Readonly<Record<string, Page>>): Promise<FakeSite> {
  const log: string[] = [];
  let markAbandoned: () => void = () => {};
  const abandoned = new Promise<void>((resolve) => {
    markAbandoned = resolve;
  });
  const server = await listenLocal(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://site.local").pathname;
    log.push(path);
    const answer = pages[path];
    if (answer === undefined) {
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
      return;
    }
    if (answer.kind === "hang") {
      await clientGone(req, res);
      markAbandoned();
      return;
    }
    if (answer.kind === "body") {
      res.writeHead(answer.status, answer.headers).end(answer.body);
      return;
    }
    res.writeHead(200, { "content-type": answer.type });
    let open = true;
    res.on("close", () => {
      open = false;
    });
    while (open) {
      if (!res.write(answer.chunk)) {
        await new Promise((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
      }
      if (!open) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
  return {
    url: server.url,
    port: server.port,
    hits: (path) => log.filter((p) => p === path).length,
    log,
    abandoned,
    close: server.close,
  };
}
