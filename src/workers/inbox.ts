import type { Redis } from "ioredis";
import type { ConversationAddress, InboundMessage } from "../core/agent/inbound.ts";
import type { KeyScheme } from "../store/keys.ts";
import { LuaScript } from "../store/lua.ts";
import { ADD_USAGE_LUA, type UsageCounting } from "../store/usage-store.ts";

/**
 * A conversation's inbox and its lease, in Redis, next to the conversation's
 * other keys (one hash slot). Every operation that decides who processes what
 * is one Lua script, so the classic race — a worker finding the inbox empty
 * and letting go just as a message arrives — cannot happen: `finish` trims
 * and releases in one step, and a message pushed before it is seen by it.
 */
const ENQUEUE = new LuaScript(`
local cutoff = tonumber(ARGV[2]) - tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
-- NX: an id already remembered keeps its first time and adds nothing (a duplicate).
if redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return redis.call('RPUSH', KEYS[2], ARGV[4])
`);

// KEYS: lease. ARGV: token, ttl. Returns 1 when the lease is ours (new or already held), else 0.
const ACQUIRE = new LuaScript(`
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`);

const RENEW = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

// KEYS: lease, inbox, checkpoint[, usage day, usage month]. ARGV: token, consumed[, the usage's six].
// Drops the consumed messages and the turn's checkpoint, and counts the turn's usage for the
// conversation (in the same step: a turn ends once, so it is counted once); lets go of the
// lease only if nothing is left. Returns {left, the consumed messages}, or {-1} if the lease
// was lost. The consumed messages come back only with usage: their token-budget reservations
// are settled with it (one round trip for the turn's end, not two).
// No checkpoint means the turn has ended already: this is the same finish run again (Redis ran
// it, then died before answering, and the client sent it again), and trims nothing more.
const FINISH = new LuaScript(`${ADD_USAGE_LUA}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1} end
if redis.call('EXISTS', KEYS[3]) == 0 then return {redis.call('LLEN', KEYS[2])} end
local consumed = tonumber(ARGV[2])
local answered = {}
if KEYS[5] and consumed > 0 then answered = redis.call('LRANGE', KEYS[2], 0, consumed - 1) end
if consumed > 0 then redis.call('LTRIM', KEYS[2], consumed, -1) end
redis.call('DEL', KEYS[3])
if KEYS[5] then
  add_usage(KEYS[4], KEYS[5], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
end
local left = redis.call('LLEN', KEYS[2])
if left == 0 then redis.call('DEL', KEYS[1]) end
table.insert(answered, 1, left)
return answered
`);

// KEYS: lease, inbox, checkpoint. ARGV: token. Lets go only if there is nothing to do.
const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local left = redis.call('LLEN', KEYS[2])
if left == 0 and redis.call('EXISTS', KEYS[3]) == 0 then redis.call('DEL', KEYS[1]) return 0 end
return left + redis.call('EXISTS', KEYS[3])
`);

// KEYS: lease, inbox, decision, control. ARGV: token, turn id, messages the turn consumed,
// wake on a new message (1/0). Parks a turn waiting for approval: lets go of the lease
// although its checkpoint remains, unless something it waits for came meanwhile: a decision,
// a stop or interrupt signal for the turn, or (steer and interrupt) a message after its own.
// Returns 0 when parked, 1 when the turn must look again at once, -1 when the lease was lost.
const PARK = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('HEXISTS', KEYS[3], 'verdict') == 1 then return 1 end
local control = redis.call('GET', KEYS[4])
if control and string.sub(control, 1, #ARGV[2] + 1) == ARGV[2] .. '|' then return 1 end
if ARGV[4] == '1' and redis.call('LLEN', KEYS[2]) > tonumber(ARGV[3]) then return 1 end
redis.call('DEL', KEYS[1])
return 0
`);

// KEYS: lease, inbox, pickups. ARGV: token, the first message's event id, how many.
// Drops messages given up before their turn began, and their pickup count. Returns 1, or 0 if
// the lease was lost. Run again (Redis ran it and died before answering, and the client sent it
// again), it finds another message first, or none, and drops nothing more.
const DROP = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local head = redis.call('LINDEX', KEYS[2], 0)
if head then
  local ok, message = pcall(cjson.decode, head)
  if ok and type(message) == 'table' and message.eventId == ARGV[2] then
    redis.call('LTRIM', KEYS[2], tonumber(ARGV[3]), -1)
  end
end
redis.call('DEL', KEYS[3])
return 1
`);

export interface InboxKeys {
  readonly inbox: string;
  readonly seen: string;
  readonly lease: string;
  readonly checkpoint: string;
}

export class Inbox {
  constructor(
    readonly redis: Redis,
    private readonly keys: KeyScheme,
    /** How long an event id is remembered for dedupe. */
    private readonly dedupeMs = 24 * 60 * 60 * 1000,
  ) {}

  keysOf(address: ConversationAddress): InboxKeys {
    const tag = this.keys.conversationTag(address);
    const keys = this.keys.conversation(address);
    return {
      inbox: `${tag}:inbox`,
      seen: `${tag}:seen`,
      lease: keys.lease,
      checkpoint: keys.checkpoint,
    };
  }

  /** Appends a message unless its event id was seen. Returns false for a duplicate. */
  async push(message: InboundMessage, now: number): Promise<boolean> {
    const k = this.keysOf(message);
    const result = await ENQUEUE.run(
      this.redis,
      [k.seen, k.inbox],
      [message.eventId, now, this.dedupeMs, JSON.stringify({ ...message, receivedAt: now })],
    );
    return Number(result) > 0;
  }

  /** Everything waiting, oldest first. */
  async pending(address: ConversationAddress): Promise<InboundMessage[]> {
    const raw = await this.redis.lrange(this.keysOf(address).inbox, 0, -1);
    return raw.map((text) => JSON.parse(text) as InboundMessage);
  }

  async acquire(address: ConversationAddress, token: string, ttlMs: number): Promise<boolean> {
    const k = this.keysOf(address);
    return Number(await ACQUIRE.run(this.redis, [k.lease], [token, ttlMs])) === 1;
  }

  async renew(address: ConversationAddress, token: string, ttlMs: number): Promise<boolean> {
    const k = this.keysOf(address);
    return Number(await RENEW.run(this.redis, [k.lease], [token, ttlMs])) === 1;
  }

  async holder(address: ConversationAddress): Promise<{ token: string | null; ttlMs: number }> {
    const k = this.keysOf(address);
    const [[, token], [, ttl]] = (await this.redis.multi().get(k.lease).pttl(k.lease).exec()) as [
      [unknown, string | null],
      [unknown, number],
    ];
    return { token, ttlMs: Number(ttl) };
  }

  /**
   * Ends the turn in progress (its checkpoint is stored): see {@link FINISH}.
   * With `usage`, the conversation's counters count the turn in the same
   * step, and `answered` holds the messages it consumed. `left` is the
   * number of messages left, or -1 if the lease was lost (and nothing was
   * written). Run twice, it ends the turn once (the second run answers none).
   */
  async finish(
    address: ConversationAddress,
    token: string,
    consumed: number,
    usage?: UsageCounting,
  ): Promise<{ left: number; answered: InboundMessage[] }> {
    const k = this.keysOf(address);
    const [left, ...answered] = (await FINISH.run(
      this.redis,
      [k.lease, k.inbox, k.checkpoint, ...(usage?.keys ?? [])],
      [token, consumed, ...(usage?.args ?? [])],
    )) as [number, ...string[]];
    return {
      left: Number(left),
      answered: answered.map((text) => JSON.parse(text) as InboundMessage),
    };
  }

  /**
   * Drops the first `count` messages, when the first is still `firstEventId`:
   * a turn given up before it began (see `giveUpUnbegun`). Keeps the lease;
   * the drain looks at the inbox again. Returns false if the lease was lost.
   * Run twice, it drops them once.
   */
  async drop(
    address: ConversationAddress,
    token: string,
    firstEventId: string,
    count: number,
  ): Promise<boolean> {
    const k = this.keysOf(address);
    const pickups = this.keys.conversation(address).pickups;
    const dropped = await DROP.run(
      this.redis,
      [k.lease, k.inbox, pickups],
      [token, firstEventId, count],
    );
    return Number(dropped) === 1;
  }

  /**
   * Lets go of a conversation whose turn waits for approval (see {@link PARK}):
   * "parked" (the lease is free; a wake job resumes the turn), "look" (what
   * it waits for came meanwhile: resume now), or "lost".
   */
  async park(
    address: ConversationAddress,
    token: string,
    wait: {
      readonly approvalId: string;
      readonly turnId: string;
      readonly consumed: number;
      readonly wakeOnMessage: boolean;
    },
  ): Promise<"parked" | "look" | "lost"> {
    const k = this.keysOf(address);
    const tag = this.keys.conversationTag(address);
    const parked = Number(
      await PARK.run(
        this.redis,
        [k.lease, k.inbox, this.keys.approval(address, wait.approvalId), `${tag}:control`],
        [token, wait.turnId, wait.consumed, wait.wakeOnMessage ? 1 : 0],
      ),
    );
    return parked === 0 ? "parked" : parked === 1 ? "look" : "lost";
  }

  /** Lets go when idle. Returns 0 when released, >0 when there is work after all, -1 if lost. */
  async release(address: ConversationAddress, token: string): Promise<number> {
    const k = this.keysOf(address);
    return Number(await RELEASE.run(this.redis, [k.lease, k.inbox, k.checkpoint], [token]));
  }

  /** Nothing waiting, no turn in progress, no lease: the conversation is at rest. */
  async idle(address: ConversationAddress): Promise<boolean> {
    const k = this.keysOf(address);
    return (await this.redis.exists(k.inbox, k.checkpoint, k.lease)) === 0;
  }
}
