import type { Redis } from "ioredis";
import { type LoggerPort, silentLogger, WarnOnce } from "../core/logger.ts";
import type { KeyScheme } from "./keys.ts";

/**
 * What a store of conversation state starts from: the connection, the key
 * scheme every key comes from, and where damaged data is reported (once per
 * key and problem, so a broken key does not flood the log).
 */
export abstract class StateStore {
  protected readonly redis: Redis;
  protected readonly keys: KeyScheme;
  protected readonly warnings: WarnOnce;

  constructor(redis: Redis, keys: KeyScheme, logger: LoggerPort = silentLogger) {
    this.redis = redis;
    this.keys = keys;
    this.warnings = new WarnOnce(logger);
  }
}
