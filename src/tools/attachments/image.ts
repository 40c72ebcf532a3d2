import type sharp from "sharp";

export interface VisionImage {
  readonly url: string;
  readonly width: number;
  readonly height: number;
  readonly bytes: number;
}

/**
 * An image as the model gets it: its first frame (a gif or animated webp),
 * turned upright by its EXIF orientation, scaled down so its longest side
 * is at most `maxSide` (never up), and encoded as PNG when it has an alpha
 * channel, else JPEG; as a base64 data URL. The same bytes always make the
 * same URL, so a resumed turn sends the same request.
 */
export async function visionImage(bytes: Uint8Array, maxSide: number): Promise<VisionImage> {
  const sharp = await loadSharp();
  const image = sharp(bytes, { pages: 1, limitInputPixels: 100_000_000 }).rotate();
  const meta = await image.metadata();
  const resized = image.resize({
    width: maxSide,
    height: maxSide,
    fit: "inside",
    withoutEnlargement: true,
  });
  const alpha = meta.hasAlpha === true;
  const { data, info } = await (alpha
    ? resized.png({ compressionLevel: 9 })
    : resized.jpeg({ quality: 85, mozjpeg: false })
  ).toBuffer({ resolveWithObject: true });
  const type = alpha ? "image/png" : "image/jpeg";
  return {
    url: `data:${type};base64,${data.toString("base64")}`,
    width: info.width,
    height: info.height,
    bytes: data.byteLength,
  };
}

/**
 * sharp, imported at the first image rather than with the bot: it loads
 * libvips, a native library, which takes some 0.1 s and memory that a
 * bot nobody sends images to never needs.
 */
async function loadSharp(): Promise<typeof sharp> {
  try {
    return (await import("sharp")).default;
  } catch (error) {
    throw new Error(
      `sharp, which reads images, could not be loaded: ${(error as Error)?.message ?? String(error)}`,
      { cause: error },
    );
  }
}
