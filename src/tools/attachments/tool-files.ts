import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { judgeOutgoing } from "../../core/attachments/outgoing.ts";
import type { AttachmentsConfig } from "../../core/config/attachments-section.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import type { ToolFile } from "../../core/tools/tool-result.ts";
import type { FileTally, KeptFile, ToolFileStore } from "../../ports/tool-files.ts";
import type { KeyScheme } from "../../store/keys.ts";
import { sniffType } from "./sniff.ts";

export interface RedisToolFilesOptions {
  readonly redis: Redis;
  readonly keys: KeyScheme;
  /** The `attachments:` section as it is now (caps, and how long kept bytes live). */
  readonly limits: () => AttachmentsConfig;
}

/**
 * The files tools make, kept in Redis until the answer goes out: typed
 * from their bytes like the files people send, held to the same caps, and
 * stored for `attachments.cache_seconds` under a ref derived from the call
 * (the same in every run of the turn).
 */
export class RedisToolFiles implements ToolFileStore {
  constructor(private readonly options: RedisToolFilesOptions) {}

  async keep(
    address: ConversationAddress,
    callKey: string,
    files: readonly ToolFile[],
    tally: FileTally,
  ): Promise<readonly KeptFile[]> {
    const limits = this.options.limits();
    const types = await Promise.all(files.map((f) => sniffType(f.bytes, f.type, f.name)));
    const kept: KeptFile[] = [];
    const writes: Promise<unknown>[] = [];
    for (const [i, file] of files.entries()) {
      const facts = { name: file.name, type: types[i] as string, bytes: file.bytes.byteLength };
      // Judged and counted with no await between: parallel calls of a step share the tally.
      const verdict = judgeOutgoing(facts, limits, tally.used);
      if (verdict.kind === "refused") {
        kept.push({ verdict });
        continue;
      }
      tally.used += facts.bytes;
      const record = { ref: fileRef(callKey, i), ...facts };
      kept.push({ verdict, record });
      const key = this.options.keys.toolFile(address, record.ref);
      const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
      writes.push(this.options.redis.set(key, bytes, "EX", limits.cacheSeconds));
    }
    await Promise.all(writes);
    return kept;
  }

  async load(address: ConversationAddress, ref: string): Promise<Uint8Array | undefined> {
    const bytes = await this.options.redis.getBuffer(this.options.keys.toolFile(address, ref));
    return bytes === null ? undefined : new Uint8Array(bytes);
  }
}

/** A file's ref: short, key-safe, and the same for the same call and position in every run. */
export function fileRef(callKey: string, index: number): string {
  return createHash("sha1").update(`${callKey}\0${index}`).digest("hex").slice(0, 20);
}
