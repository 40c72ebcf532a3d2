import { crc32 } from "node:zlib";
import sharp from "sharp";
import { z } from "zod";
import { DEFAULT_ATTACHMENTS } from "../../src/core/config/index.ts";
import { type AnyTool, defineTool } from "../../src/core/tools/tool.ts";
import { type ToolFile, toolResult } from "../../src/core/tools/tool-result.ts";
import { OPEN_DMS } from "./channels.ts";

/**
 * Small real files for attachment tests, made here rather than checked in:
 * a PNG the image library draws, a PDF written by hand, a Word document
 * zipped by hand, an Ogg/Opus stream; and a tool that returns such files.
 */

/** A PNG of the given size: two colour bands, so a downscaled copy is still recognisably it. */
export async function makePng(width: number, height: number): Promise<Buffer> {
  const band = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const left = x < width / 2;
      band[i] = left ? 220 : 20;
      band[i + 1] = 40;
      band[i + 2] = left ? 30 : 200;
    }
  }
  return sharp(band, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A PDF whose pages each show one line of text (Helvetica), with a correct xref table. */
export function makePdf(pages: readonly string[]): Buffer {
  const objects: string[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + i * 2} 0 R`).join(" ")}] /Count ${pages.length} >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  pages.forEach((text, i) => {
    const stream = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, "\\$&")}) Tj ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`,
      `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    );
  });
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** A zip archive of the files as given, stored (not deflated), in order. */
function storedZip(files: readonly (readonly [string, string])[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [path, text] of files) {
    const name = Buffer.from(path, "utf8");
    const data = Buffer.from(text, "utf8");
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A Word document (DOCX) with one paragraph per entry, as Word lays out the minimal package. */
export function makeDocx(paragraphs: readonly string[]): Buffer {
  const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
  const body = paragraphs.map(
    (p) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r></w:p>`,
  );
  return storedZip([
    [
      "[Content_Types].xml",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    ],
    [
      "_rels/.rels",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    ],
    [
      "word/document.xml",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>${body.join("")}</w:body></w:document>`,
    ],
  ]);
}

/** The Ogg CRC-32 (polynomial 0x04c11db7, not reflected). */
function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 24;
    for (let k = 0; k < 8; k++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  }
  return crc >>> 0;
}

function oggPage(packet: Buffer, sequence: number, flags: number): Buffer {
  const header = Buffer.alloc(27);
  header.write("OggS", 0, "latin1");
  header[5] = flags;
  header.writeUInt32LE(0x5157, 14);
  header.writeUInt32LE(sequence, 18);
  header[26] = 1;
  const page = Buffer.concat([header, Buffer.from([packet.length]), packet]);
  page.writeUInt32LE(oggCrc(page), 22);
  return page;
}

/** An Ogg/Opus stream's header pages (OpusHead, OpusTags) and one silent packet: what a voice note starts with. */
export function makeOggOpus(): Buffer {
  const head = Buffer.alloc(19);
  head.write("OpusHead", 0, "latin1");
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(312, 10);
  head.writeUInt32LE(48_000, 12);
  const tags = Buffer.concat([
    Buffer.from("OpusTags", "latin1"),
    Buffer.from([10, 0, 0, 0]),
    Buffer.from("switchyard", "latin1"),
    Buffer.from([0, 0, 0, 0]),
  ]);
  const silence = Buffer.from([0xf8, 0xff, 0xfe]);
  return Buffer.concat([oggPage(head, 0, 2), oggPage(tags, 1, 0), oggPage(silence, 2, 4)]);
}

/** A plugin tool, `make_report`, that returns the files `files()` makes, counting its runs (a resumed turn must not run it again). */
export function reportTool(files: () => ToolFile[]): { tool: AnyTool; counted: { runs: number } } {
  const counted = { runs: 0 };
  const tool = defineTool({
    id: "make_report",
    description: "Makes the quarterly report and its chart.",
    parameters: z.object({}),
    execute: () => {
      counted.runs++;
      return toolResult("Made the report.", files());
    },
  });
  return { tool, counted };
}

/** A report over a 100-byte document cap: the tool that makes it, and the config whose cap refuses it. */
export function oversizedReport() {
  const pdf = makePdf(["Quarterly report", "with many pages of figures"]);
  const { tool } = reportTool(() => [{ name: "report.pdf", bytes: pdf }]);
  const config = () => ({
    ...OPEN_DMS,
    attachments: { ...DEFAULT_ATTACHMENTS, maxDocumentBytes: 100 },
  });
  return { pdf, tool, config };
}
