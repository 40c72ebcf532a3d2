/**
 * `createTestBot`: your bot (your tools, persona, config, plugins) started
 * against the kit's fake Slack, Telegram and Discord and a scripted model, on Redis,
 * with a handle to talk to it as a person would and read what it did.
 *
 * Plain promises and no test-runner imports: it works in vitest, node:test
 * or a script.
 *
 * @example
 * import { createTestBot } from "switchyard/testing";
 *
 * const bot = await createTestBot({
 *   tools: [weather],
 *   persona: "You are Ada.",
 *   model: { rules: [{ when: "weather", reply: [{ tool: "weather", args: { city: "Paris" } }, (r) => `It says: ${r.lastToolResult}`] }] },
 * });
 * try {
 *   await bot.say("What's the weather in Paris?");
 *   const answer = await bot.nextAnswer();
 *   // answer.text === "It says: Sunny in Paris"
 *   // bot.toolCalls()[0]?.args  -> { city: "Paris" }
 * } finally {
 *   await bot.stop();
 * }
 */
import type { SwitchyardConfig } from "../core/config/index.ts";
import { createLogger } from "../observability/logger.ts";
import { Metrics, type TurnObservation } from "../observability/metrics.ts";
import { parseConfig } from "../platforms/config.ts";
import { type Bot, createBot } from "../runtime/create-bot.ts";
import type { BotOptions, ConfigSource } from "../runtime/options.ts";
import type { ModelScript } from "./scripted-model.ts";
import type { TestDiscord } from "./test-discord.ts";
import {
  type RecordedToolCall,
  type SeenContract,
  startTestModel,
  type TestModel,
} from "./test-model.ts";
import type {
  BotPost,
  ClickTarget,
  Said,
  SentFile,
  TestPlatform,
  TestPlatformName,
  Where,
} from "./test-platform.ts";
import { startTestRedis, type TestRedis, type TestRedisCluster } from "./test-redis.ts";
import { startTestSlack, type TestSlack } from "./test-slack.ts";
import { startTestTelegram, type TestTelegram } from "./test-telegram.ts";

/** Your bot's parts, as `createBot` takes them, and what the test bot runs it against. */
export interface TestBotOptions
  extends Pick<
    BotOptions,
    | "tools"
    | "builtins"
    | "skills"
    | "persona"
    | "plugins"
    | "runtime"
    | "queue"
    | "concurrency"
    | "maxSteps"
    | "toolTimeoutMs"
    | "historyMaxTokens"
    | "streamEditMs"
    | "logger"
  > {
  /**
   * The config: a file path, YAML text (anything with a newline or a colon
   * that is not a file), a parsed config or a source. Default: DMs and groups
   * open to everyone, so a test's person may talk to the bot at once.
   */
  readonly config?: string | SwitchyardConfig | ConfigSource;
  /** The platforms the bot is on; default Slack alone. The first is where `say` writes unless told. */
  readonly platforms?: readonly TestPlatformName[];
  /** How the model answers; default: `echo: <what the person said>`. */
  readonly model?: ModelScript;
  /**
   * A Redis URL, or a Cluster's nodes (`{ cluster: ["127.0.0.1:7000", ...] }`);
   * default `REDIS_URL`, else a throwaway `redis-server` the test bot starts and stops.
   */
  readonly redis?: string | TestRedisCluster;
  /** Read for credentials, as by `createBot`; default: an empty environment, so nothing of yours leaks in. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Where a person writes, and on which platform (default: the test bot's first). */
export interface SayOptions extends Where {
  readonly platform?: TestPlatformName;
}

/** What the bot answered one message: its posts in order (a long answer is split), and their text. */
export interface Answer {
  readonly text: string;
  readonly posts: readonly BotPost[];
}

export interface WaitOptions {
  /** Default 20 s. */
  readonly timeoutMs?: number;
}

export interface TestBot {
  /** The bot itself, as `createBot` made it. */
  readonly bot: Bot;
  readonly model: TestModel;
  readonly slack: TestSlack | undefined;
  readonly telegram: TestTelegram | undefined;
  /** Set when the test bot is on Discord (`platforms: ["discord"]`, which needs the `ws` package). */
  readonly discord: TestDiscord | undefined;
  /** A person writes `text`: a DM with the bot unless `channel` says (then it mentions the bot). */
  say(text: string, options?: SayOptions): Promise<Said>;
  /** A person sends a file, with `text` beside it. */
  file(file: SentFile, text?: string, options?: SayOptions): Promise<Said>;
  /** A person presses a button of the bot's by its label (the newest message that has it). */
  click(label: string | RegExp, options?: SayOptions & { readonly post?: BotPost }): Promise<void>;
  /** Approves the newest approval request (its "Approve" button), as `options.user` (default: the requester). */
  approve(options?: SayOptions): Promise<void>;
  /** Denies the newest approval request. */
  deny(options?: SayOptions): Promise<void>;
  /**
   * The bot's next answer: the posts of the next turn that ends, or an
   * approval request it posted, or a command's reply. Rejects after
   * `timeoutMs`, listing what the bot did post.
   */
  nextAnswer(options?: WaitOptions): Promise<Answer>;
  /** Everything the bot posted on every platform, oldest first, each as last edited. */
  answers(): BotPost[];
  /** The tool calls the model made, with the bot's answer to each (a result or a tombstone). */
  toolCalls(): RecordedToolCall[];
  /** The tools and system prompt of the bot's latest request to the model. */
  contract(): SeenContract;
  /** Stops the bot, the fakes and the model, and deletes its Redis keys (or stops its Redis). */
  stop(): Promise<void>;
}

/** The test bot could not do what was asked; the message says what to change. */
export class TestBotError extends Error {
  override readonly name = "TestBotError";
}

const OPEN_ACCESS = "access:\n  dm: open\n  groups: open\n";
const APPROVE = "Approve";
const DENY = "Deny";

/** Metrics that also count the turns that ended, which is when an answer is complete. */
class TurnWatch extends Metrics {
  ended = 0;
  override observeTurn(turn: TurnObservation): void {
    super.observeTurn(turn);
    this.ended += 1;
  }
}

export async function createTestBot(options: TestBotOptions = {}): Promise<TestBot> {
  const names = options.platforms ?? ["slack"];
  if (names.length === 0)
    throw new TestBotError(
      'A test bot needs a platform: platforms: ["slack"], ["telegram"] or ["discord"].',
    );
  const started: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const part of started.splice(0).reverse()) await part.stop().catch(() => {});
  };
  try {
    const redis: TestRedis = await startTestRedis(options.redis);
    started.push(redis);
    const model = await startTestModel(options.model);
    started.push({ stop: () => model.close() });
    const platforms = new Map<TestPlatformName, TestPlatform>();
    for (const name of names) {
      const platform = await startPlatform(name);
      platforms.set(name, platform);
      started.push({ stop: () => platform.close() });
    }
    const metrics = new TurnWatch();
    const { redis: _where, ...botOptions } = options;
    const bot = createBot({
      ...botOptions,
      config: configOf(options.config),
      env: { ...(options.env ?? {}), ...redis.env },
      channels: [...platforms.values()].map((p) => p.channel()),
      provider: model.provider(),
      ...(redis.url ? { redis: redis.url } : {}),
      prefix: redis.prefix,
      metrics,
      processGuard: false,
      logger:
        options.logger ??
        createLogger({ level: process.env.LOG_LEVEL ?? "error", destination: process.stderr }),
    });
    started.push({ stop: () => bot.stop() });
    await bot.start();
    return new RunningTestBot(
      bot,
      model,
      platforms,
      metrics,
      names[0] as TestPlatformName,
      stopAll,
    );
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function startPlatform(name: TestPlatformName): Promise<TestPlatform> {
  if (name === "slack") return startTestSlack();
  if (name === "telegram") return startTestTelegram();
  // Imported only for Discord: its fake gateway needs `ws`, an optional peer.
  const { startTestDiscord } = await import("./test-discord.ts");
  return startTestDiscord();
}

/** A path stays a path; text with a newline or a colon is YAML; nothing means open access. */
function configOf(config: TestBotOptions["config"]): BotOptions["config"] {
  if (config === undefined) return parseConfig(OPEN_ACCESS, "test-bot.yaml");
  if (typeof config === "string" && /[\n:]/.test(config) && !/\.ya?ml$/i.test(config.trim())) {
    return parseConfig(config, "test-bot.yaml");
  }
  return config;
}

class RunningTestBot implements TestBot {
  readonly slack: TestSlack | undefined;
  readonly telegram: TestTelegram | undefined;
  readonly discord: TestDiscord | undefined;
  /** How many posts earlier answers returned, per platform. */
  readonly #returned = new Map<TestPlatformName, number>();
  #turnsSeen = 0;
  #requestsAtSay = 0;

  constructor(
    readonly bot: Bot,
    readonly model: TestModel,
    readonly platforms: Map<TestPlatformName, TestPlatform>,
    readonly metrics: TurnWatch,
    readonly first: TestPlatformName,
    readonly stopAll: () => Promise<void>,
  ) {
    this.slack = platforms.get("slack") as TestSlack | undefined;
    this.telegram = platforms.get("telegram") as TestTelegram | undefined;
    this.discord = platforms.get("discord") as TestDiscord | undefined;
  }

  #platform(name: TestPlatformName | undefined): TestPlatform {
    const platform = this.platforms.get(name ?? this.first);
    if (!platform) {
      throw new TestBotError(
        `The test bot is not on ${name}: add it to platforms (it is on ${[...this.platforms.keys()].join(", ")}).`,
      );
    }
    return platform;
  }

  say(text: string, options: SayOptions = {}): Promise<Said> {
    this.#requestsAtSay = this.model.fake.requests.length;
    return this.#platform(options.platform).say(text, options);
  }

  file(file: SentFile, text = "", options: SayOptions = {}): Promise<Said> {
    this.#requestsAtSay = this.model.fake.requests.length;
    return this.#platform(options.platform).file(file, text, options);
  }

  click(
    label: string | RegExp,
    options: SayOptions & { readonly post?: BotPost } = {},
  ): Promise<void> {
    this.#requestsAtSay = this.model.fake.requests.length;
    const target: ClickTarget = { ...options, label };
    return this.#platform(options.platform).click(target);
  }

  approve(options: SayOptions = {}): Promise<void> {
    return this.click(APPROVE, options);
  }

  deny(options: SayOptions = {}): Promise<void> {
    return this.click(DENY, options);
  }

  answers(): BotPost[] {
    return [...this.platforms.values()].flatMap((p) => p.posts());
  }

  toolCalls(): RecordedToolCall[] {
    return this.model.toolCalls();
  }

  contract(): SeenContract {
    return this.model.contract();
  }

  async nextAnswer({ timeoutMs = 20_000 }: WaitOptions = {}): Promise<Answer> {
    const deadline = Date.now() + timeoutMs;
    let quietSince = Date.now();
    let lastShape = "";
    for (;;) {
      const fresh = this.#unreturned();
      const shape = JSON.stringify(fresh);
      if (shape !== lastShape) {
        lastShape = shape;
        quietSince = Date.now();
      }
      if (fresh.length > 0) {
        const turnEnded = this.metrics.ended > this.#turnsSeen;
        const asks = fresh.some((p) => p.controls.some((c) => c.label === APPROVE));
        // A command's reply (/tools, a pairing note): no turn ran for it, and the posts stopped changing.
        const noTurn =
          this.model.fake.requests.length === this.#requestsAtSay && Date.now() - quietSince >= 300;
        if (turnEnded || asks || noTurn) return this.#take(fresh);
      }
      if (Date.now() > deadline) {
        const posted = this.answers().map((p) => JSON.stringify(p.text));
        throw new TestBotError(
          `No answer within ${timeoutMs} ms. The bot has posted ${posted.length} message(s) in all${posted.length ? `: ${posted.join(", ")}` : ""}; the model had ${this.model.fake.requests.length} request(s).`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Posts no answer has returned yet, across platforms. */
  #unreturned(): BotPost[] {
    return [...this.platforms.entries()].flatMap(([name, platform]) =>
      platform.posts().slice(this.#returned.get(name) ?? 0),
    );
  }

  #take(posts: BotPost[]): Answer {
    for (const [name, platform] of this.platforms)
      this.#returned.set(name, platform.posts().length);
    this.#turnsSeen = this.metrics.ended;
    return { text: posts.map((p) => p.text).join("\n"), posts };
  }

  stop(): Promise<void> {
    return this.stopAll();
  }
}
