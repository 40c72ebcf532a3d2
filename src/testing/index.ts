/**
 * `switchyard/testing`: test your bot the way Switchyard tests itself. The
 * real platform SDKs talk to local fakes that speak the platforms' wire
 * protocols, and the real `openai` SDK talks to a scripted model, so a test
 * sees what a person in the chat would see.
 *
 * - {@link createTestBot}: your bot (tools, persona, config, plugins) on fake
 *   Slack, Telegram and Discord, a scripted model and Redis, with `say`, `click`,
 *   `approve`, `nextAnswer`, `answers`, `toolCalls`, `contract` and `stop`.
 * - {@link scriptedModel} and {@link startTestModel}: a model that answers by
 *   rules or in sequence, with text, tool calls, stalls and errors.
 * - {@link startTestSlack}, {@link startTestTelegram}, {@link startTestDiscord}: one platform each, for
 *   a bot you build with `createBot` yourself.
 * - The fakes themselves (`startFakeSlackApi`, `startFakeTelegram`,
 *   `startFakeDiscord`, `startFakeOpenAI`, `startFakeAnthropic`), each on a
 *   free port with everything it received.
 *
 * Nothing here imports a test runner: it works in vitest, node:test or a
 * plain script. It needs Redis (`REDIS_URL`, or `redis-server` on the PATH),
 * and the Discord fake needs the `ws` package.
 *
 * @example
 * import { createTestBot } from "switchyard/testing";
 *
 * const bot = await createTestBot({ tools: [weather], model: { rules: [{ when: "hi", reply: "Hello!" }] } });
 * await bot.say("hi");
 * (await bot.nextAnswer()).text; // "Hello!"
 * await bot.stop();
 *
 * @module
 */

export {
  type FakeAnthropic,
  type FakeAnthropicOptions,
  type MessagesResponder,
  type RecordedMessagesRequest,
  type ScriptedMessage,
  startFakeAnthropic,
} from "./fakes/anthropic.ts";
export {
  FAKE_DISCORD,
  type FakeDiscord,
  type FakeDiscordBot,
  type FakeDiscordBotOptions,
  type FakeDiscordOptions,
  type MessageCreateInput,
  startFakeDiscord,
} from "./fakes/discord-api.ts";
export { MissingWebSocketError } from "./fakes/discord-gateway.ts";
export {
  FAKE_MODEL_ID,
  type FakeOpenAI,
  type FakeOpenAIOptions,
  type RecordedRequest,
  type Responder,
  type ScriptedReply,
  type ScriptedToolCall,
  startFakeOpenAI,
} from "./fakes/openai-server.ts";
export {
  FAKE_SLACK,
  type FakeSlackApi,
  type FakeSlackApiOptions,
  type FakeSlackMessage,
  type FakeSlackUser,
  type RecordedCall,
  startFakeSlackApi,
} from "./fakes/slack-api.ts";
export {
  appMentionEvent,
  type BlockActionInput,
  messageEvent,
  sendBlockAction,
  sendEvent,
  sendSlashCommand,
  signSlackRequest,
} from "./fakes/slack-requests.ts";
export {
  FAKE_TELEGRAM,
  type FakeTelegram,
  type RecordedTelegramCall,
  type StoredMessage,
  startFakeTelegram,
} from "./fakes/telegram-api.ts";
export { NoSuchControlError } from "./find-control.ts";
export { type ForwardOptions, forwardingModel, requestKey } from "./recorded-model.ts";
export {
  parseScenario,
  type Scenario,
  ScenarioError,
  type ScenarioExpectation,
  scenarioModel,
} from "./scenario.ts";
export { runTestCommand, type TestCommandIo } from "./scenario-command.ts";
export {
  type RunScenarioOptions,
  runScenario,
  type ScenarioReport,
  type StepReport,
} from "./scenario-run.ts";
export {
  type ModelMatch,
  type ModelRequest,
  type ModelRule,
  type ModelScript,
  ModelScriptError,
  type ModelStep,
  readModelRequest,
  scriptedModel,
} from "./scripted-model.ts";
export {
  type Answer,
  createTestBot,
  type SayOptions,
  type TestBot,
  TestBotError,
  type TestBotOptions,
  type WaitOptions,
} from "./test-bot.ts";
export {
  startTestDiscord,
  TEST_DISCORD_CHANNEL,
  TEST_DISCORD_USER,
  type TestDiscord,
} from "./test-discord.ts";
export {
  type RecordedToolCall,
  type SeenContract,
  startTestModel,
  type TestModel,
} from "./test-model.ts";
// The vocabulary every platform of the kit shares, whole (it is types only).
export type * from "./test-platform.ts";
export {
  startTestRedis,
  type TestRedis,
  type TestRedisCluster,
  TestRedisError,
} from "./test-redis.ts";
export {
  startTestSlack,
  TEST_SLACK_SECRET,
  TEST_SLACK_USERS,
  type TestSlack,
  type TestSlackOptions,
} from "./test-slack.ts";
export { startTestTelegram, TEST_TELEGRAM_USERS, type TestTelegram } from "./test-telegram.ts";
