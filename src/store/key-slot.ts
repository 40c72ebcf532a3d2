/**
 * Redis Cluster's key-to-slot rule: CRC16 (XMODEM) of the key, or of its
 * hash tag (the text between the first `{` and the next `}`, when not
 * empty), modulo 16384. Switchyard needs it only to place its queue shards
 * on different parts of the slot space (see {@link slotSpreadTag}); ioredis
 * has its own copy for routing, not exported.
 */

export const SLOT_COUNT = 16_384;

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** The part of `key` Redis hashes: its hash tag when it has one, else the whole key. */
export function hashedPart(key: string): string {
  const open = key.indexOf("{");
  if (open === -1) return key;
  const close = key.indexOf("}", open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

/**
 * The cluster slot of `key`, as `CLUSTER KEYSLOT` answers it.
 *
 * @example
 * keySlot("sy:{conv:slack:T1:C1:1}:intent") === keySlot("sy:{conv:slack:T1:C1:1}:history") // true
 */
export function keySlot(key: string): number {
  return crc16(new TextEncoder().encode(hashedPart(key))) % SLOT_COUNT;
}

const spreadTags = new Map<string, string>();

/**
 * A hash tag `<base>:<n>` (n the first number that fits) whose slot lies in
 * the middle of the `index`-th of `parts` equal stretches of the slot space.
 *
 * A cluster's masters hold contiguous stretches of slots (`redis-cli
 * --cluster create` and `rebalance` split them evenly), so N queues whose
 * tags sit at evenly spaced slots land on as many different masters as
 * there are, where N plain names would collide by chance (4 names on 3
 * masters put 3 on one master a third of the time). The result depends on
 * nothing but the arguments, so every process picks the same tag.
 */
export function slotSpreadTag(base: string, index: number, parts: number): string {
  const memo = `${base}\0${index}\0${parts}`;
  const known = spreadTags.get(memo);
  if (known !== undefined) return known;
  const width = SLOT_COUNT / parts;
  const centre = Math.floor((index + 0.5) * width);
  // A sixteenth of the stretch around its middle: close enough that a tag stays on the
  // master holding the middle of its stretch, and about 16 * parts tries to find one.
  const reach = Math.max(1, Math.floor(width / 32));
  for (let n = 0; ; n++) {
    const tag = `${base}:${n}`;
    const slot = keySlot(tag);
    if (Math.abs(slot - centre) <= reach) {
      spreadTags.set(memo, tag);
      return tag;
    }
  }
}
