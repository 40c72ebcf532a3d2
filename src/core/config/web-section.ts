import { z } from "zod";
import { describeValue } from "./errors.ts";
import { flag } from "./flag.ts";

/**
 * The built-in web tools: where `web_search` asks, and how far `fetch_url`
 * may reach. API keys stay in the environment; the file only names the
 * variable that holds one.
 *
 * ```yaml
 * web:
 *   search:
 *     provider: searxng            # searxng, brave or tavily
 *     url: http://searxng:8080     # required for searxng; overrides the API address of brave/tavily
 *     api_key_env: BRAVE_API_KEY   # brave/tavily; defaults to BRAVE_API_KEY / TAVILY_API_KEY
 *     max_results: 5
 *     timeout_seconds: 10
 *   fetch:
 *     max_bytes: 1000000           # stop downloading after this many bytes
 *     max_chars: 20000             # the most text handed to the model
 *     timeout_seconds: 15
 *     allow_hosts: [wiki.internal] # internal hosts fetch_url may reach anyway
 *     allow_private: false         # DANGEROUS: lets the model reach your private network
 * ```
 */
export interface WebConfig {
  /** Absent when no provider is configured: `web_search` is then off at the floor. */
  readonly search?: WebSearchConfig;
  readonly fetch: WebFetchConfig;
}

export type SearchProviderName = "searxng" | "brave" | "tavily";

export interface WebSearchConfig {
  readonly provider: SearchProviderName;
  /** The SearxNG instance, or another address for the Brave/Tavily API (a proxy, a test server). */
  readonly url?: string;
  /** The environment variable holding the API key; set for brave and tavily only. */
  readonly apiKeyEnv?: string;
  readonly maxResults: number;
  readonly timeoutMs: number;
}

export interface WebFetchConfig {
  readonly maxBytes: number;
  readonly maxChars: number;
  readonly timeoutMs: number;
  /** Host names (or IP literals) that may resolve to private addresses; cloud metadata stays refused. */
  readonly allowHosts: readonly string[];
  /** Every private, loopback and link-local address becomes reachable. Cloud metadata stays refused. */
  readonly allowPrivate: boolean;
}

export const DEFAULT_WEB_FETCH: WebFetchConfig = Object.freeze({
  maxBytes: 1_000_000,
  maxChars: 20_000,
  timeoutMs: 15_000,
  allowHosts: Object.freeze([]) as readonly string[],
  allowPrivate: false,
});

export const DEFAULT_WEB: WebConfig = Object.freeze({ fetch: DEFAULT_WEB_FETCH });

/** The variable each keyed provider reads when `api_key_env` is not given. */
export const DEFAULT_KEY_ENV: Readonly<Record<"brave" | "tavily", string>> = Object.freeze({
  brave: "BRAVE_API_KEY",
  tavily: "TAVILY_API_KEY",
});

const PROVIDERS = "searxng, brave or tavily";
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?)+$|^\[?[0-9A-Fa-f:.]+\]?$/;

const whole = (what: string, min: number, max: number) =>
  z
    .number({ error: (iss) => `expected ${what}, found ${describeValue(iss.input)}.` })
    .int({
      error: (iss) => `expected a whole number of ${what}, found ${describeValue(iss.input)}.`,
    })
    .min(min, { error: (iss) => `${describeValue(iss.input)} is too small: use ${min} to ${max}.` })
    .max(max, {
      error: (iss) => `${describeValue(iss.input)} is too large: use ${min} to ${max}.`,
    });

const seconds = (max: number) =>
  z
    .number({
      error: (iss) => `expected a number of seconds, found ${describeValue(iss.input)}.`,
    })
    .positive({ error: (iss) => `${describeValue(iss.input)} is not above 0 seconds.` })
    .max(max, { error: (iss) => `${describeValue(iss.input)} is too long: use at most ${max}.` })
    .transform((s) => Math.round(s * 1_000));

/** Not {@link describeValue}: a key pasted where its variable's name belongs must not be echoed. */
const apiKeyEnv = z
  .string({ error: () => "expected the name of an environment variable, e.g. BRAVE_API_KEY." })
  .refine((name) => ENV_NAME.test(name), {
    error: () =>
      "expected the name of an environment variable (e.g. BRAVE_API_KEY), not the key itself. Put the key in that variable: keys never go in the config file.",
  });

const httpUrl = z
  .string({ error: (iss) => `expected a URL, found ${describeValue(iss.input)}.` })
  .superRefine((text, ctx) => {
    const url = URL.canParse(text) ? new URL(text) : undefined;
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
      // Not quoted if it has an "@": what comes before it may be a password.
      const shown = text.includes("@") ? "the URL" : describeValue(text);
      ctx.addIssue({
        code: "custom",
        message: `${shown} is not an http(s) URL. Write the address with its scheme, e.g. http://searxng:8080.`,
      });
    } else if (url.username !== "" || url.password !== "") {
      ctx.addIssue({
        code: "custom",
        message:
          "the URL holds a user name or password. Credentials never go in the config file: put the server behind a proxy that adds them, or use a provider with api_key_env.",
      });
    }
  });

const searchSection = z
  .strictObject(
    {
      provider: z.enum(["searxng", "brave", "tavily"], {
        error: (iss) =>
          `expected ${PROVIDERS}, found ${describeValue(iss.input)}. It names the search service web_search asks.`,
      }),
      url: httpUrl.optional(),
      api_key_env: apiKeyEnv.optional(),
      max_results: whole("results", 1, 20).default(5),
      timeout_seconds: seconds(120).prefault(10),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? iss.keys[0] === "api_key"
            ? "keys never go in the config file. Put the key in an environment variable and name it with api_key_env: (e.g. api_key_env: BRAVE_API_KEY)."
            : `unknown key ${JSON.stringify(iss.keys[0])}. The search section takes provider:, url:, api_key_env:, max_results: and timeout_seconds:.`
          : `expected a map such as { provider: searxng, url: http://searxng:8080 }, found ${describeValue(iss.input)}.`,
    },
  )
  .superRefine((search, ctx) => {
    if (search.provider === "searxng" && search.url === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["url"],
        message:
          "searxng needs url: the address of your SearxNG instance, e.g. url: http://searxng:8080 (with json in its search.formats).",
      });
    }
    if (search.provider === "searxng" && search.api_key_env !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["api_key_env"],
        message:
          "SearxNG takes no API key. Remove api_key_env, or choose provider: brave or tavily.",
      });
    }
  })
  .transform(
    (s): WebSearchConfig =>
      Object.freeze({
        provider: s.provider,
        ...(s.url === undefined ? {} : { url: s.url }),
        ...(s.provider === "searxng"
          ? {}
          : { apiKeyEnv: s.api_key_env ?? DEFAULT_KEY_ENV[s.provider] }),
        maxResults: s.max_results,
        timeoutMs: s.timeout_seconds,
      }),
  );

const allowHosts = z.array(
  z
    .string({ error: (iss) => `expected a host name, found ${describeValue(iss.input)}.` })
    .refine((host) => HOST.test(host), {
      error: (iss) =>
        `${describeValue(iss.input)} is not a host name. Write the name alone, without scheme, port or path, e.g. wiki.internal.`,
    }),
  {
    error: (iss) =>
      `expected a list of host names, e.g. [wiki.internal], found ${describeValue(iss.input)}.`,
  },
);

const fetchSection = z
  .strictObject(
    {
      max_bytes: whole("bytes", 1_000, 50_000_000).default(DEFAULT_WEB_FETCH.maxBytes),
      max_chars: whole("characters", 500, 200_000).default(DEFAULT_WEB_FETCH.maxChars),
      timeout_seconds: seconds(120).prefault(DEFAULT_WEB_FETCH.timeoutMs / 1_000),
      allow_hosts: allowHosts.default([]),
      allow_private: flag.default(false),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `unknown key ${JSON.stringify(iss.keys[0])}. The fetch section takes max_bytes:, max_chars:, timeout_seconds:, allow_hosts: and allow_private:.`
          : `expected a map, found ${describeValue(iss.input)}. Put max_bytes:, timeout_seconds: and the like under fetch:.`,
    },
  )
  .transform(
    (f): WebFetchConfig =>
      Object.freeze({
        maxBytes: f.max_bytes,
        maxChars: f.max_chars,
        timeoutMs: f.timeout_seconds,
        allowHosts: Object.freeze(f.allow_hosts.map(normalizeHost)),
        allowPrivate: f.allow_private,
      }),
  );

/** `Wiki.Internal.` and `[::1]` are written as the URL parser spells hosts: `wiki.internal`, `::1`. */
function normalizeHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[(.*)\]$/, "$1");
}

/** An empty `search:` or `fetch:` line reads as absent. */
const orAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => value ?? undefined, schema.optional());

export const webSection = z
  .strictObject(
    {
      search: orAbsent(searchSection),
      fetch: orAbsent(fetchSection),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `unknown key ${JSON.stringify(iss.keys[0])}. The web section takes search: and fetch:.`
          : `expected a map, found ${describeValue(iss.input)}. Put search: and fetch: under web:.`,
    },
  )
  .transform(
    (w): WebConfig =>
      Object.freeze({
        ...(w.search === undefined ? {} : { search: w.search }),
        fetch: w.fetch ?? DEFAULT_WEB_FETCH,
      }),
  );
