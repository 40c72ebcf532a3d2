import { estimateTokens } from "./estimate.ts";

/**
 * What an image part costs, by OpenAI's documented formula for its vision
 * models: `detail: "low"` is a flat 85 tokens; otherwise the image is
 * scaled to fit in 2048 x 2048, then so its shorter side is at most 768,
 * and costs 85 plus 170 for each 512-pixel tile it covers.
 *
 * @example
 * imageTokens(1024, 1024); // 765: 768 x 768 is 2 x 2 tiles, 85 + 4 * 170
 * imageTokens(4000, 3000, "low"); // 85
 */
export function imageTokens(width: number, height: number, detail?: string): number {
  if (detail === "low") return 85;
  if (!(width > 0 && height > 0)) return 85 + 170 * 4 * 4;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shorter = Math.min(1, 768 / Math.min(w, h));
  w *= shorter;
  h *= shorter;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/**
 * The pixel size of a base64 data URL's image, read from its header (PNG
 * IHDR, JPEG SOFn, GIF, WebP VP8/VP8L/VP8X), decoding only the first few
 * kilobytes; undefined when it cannot tell.
 */
export function dataUrlImageSize(url: string): { width: number; height: number } | undefined {
  const comma = url.indexOf(",");
  if (!url.startsWith("data:") || comma < 0) return undefined;
  const head = Buffer.from(url.slice(comma + 1, comma + 1 + 65_536), "base64");
  return imageSize(head);
}

function imageSize(b: Buffer): { width: number; height: number } | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) {
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (b.length >= 10 && b.toString("latin1", 0, 3) === "GIF") {
    return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  }
  if (
    b.length >= 30 &&
    b.toString("latin1", 0, 4) === "RIFF" &&
    b.toString("latin1", 8, 12) === "WEBP"
  ) {
    return webpSize(b);
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b);
  return undefined;
}

function jpegSize(b: Buffer): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1] as number;
    // SOF0-SOF15, except DHT (c4), JPG (c8) and DAC (cc), carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + b.readUInt16BE(i + 2);
  }
  return undefined;
}

function webpSize(b: Buffer): { width: number; height: number } | undefined {
  const chunk = b.toString("latin1", 12, 16);
  if (chunk === "VP8X") return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === "VP8L") {
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === "VP8 ")
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  return undefined;
}

/**
 * A stored message's estimated tokens: its JSON as text, except that each
 * image part counts by {@link imageTokens} instead of its base64 bytes.
 */
export function messageTokens(raw: string): number {
  if (!raw.includes('"image_url"')) return estimateTokens(raw);
  let images = 0;
  const text = raw.replace(
    /"image_url":\{(?:"detail":"(\w+)",)?"url":"(data:[^"]*)"(?:,"detail":"(\w+)")?\}/g,
    (_, before: string | undefined, url: string, after: string | undefined) => {
      const size = dataUrlImageSize(url);
      images += imageTokens(size?.width ?? 0, size?.height ?? 0, before ?? after);
      return '"image_url":{}';
    },
  );
  return estimateTokens(text) + images;
}
