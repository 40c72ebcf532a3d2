import { crc32, deflateRawSync } from "node:zlib";

/**
 * Hostile documents, made at test time with node:zlib rather than checked in:
 * a Word document whose one XML part deflates hundreds of megabytes into a
 * few, the same with a central directory that lies about it, one nested a
 * hundred thousand elements deep, and a PDF of a hundred thousand pages that
 * share one content stream. Each is small enough to pass the download cap.
 */

/** One zip entry: its name, its bytes as stored (deflated or not), and what the directory says. */
interface ZipEntry {
  readonly name: string;
  readonly data: Buffer;
  readonly method: 0 | 8;
  readonly crc: number;
  /** The uncompressed size the headers declare (a bomb may lie). */
  readonly declared: number;
}

/** A zip archive of the entries, in order, with local headers and a central directory. */
export function zipOf(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(entry.method, 8);
    local.writeUInt32LE(entry.crc, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(entry.method, 10);
    central.writeUInt32LE(entry.crc, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** An entry deflated (level 1: a bomb's repetition squeezes well even so, and fast). */
export function deflated(name: string, text: Buffer, declared = text.length): ZipEntry {
  return { name, data: deflateRawSync(text, { level: 1 }), method: 8, crc: crc32(text), declared };
}

const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

function docxOf(documentXml: Buffer, declared?: number): Buffer {
  const text = (s: string) => Buffer.from(s, "utf8");
  return zipOf([
    deflated(
      "[Content_Types].xml",
      text(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
      ),
    ),
    deflated(
      "_rels/.rels",
      text(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
      ),
    ),
    deflated("word/document.xml", documentXml, declared),
  ]);
}

/**
 * A DOCX whose document.xml is `unzipped` bytes of one paragraph repeated
 * (300 MB squeezes to 2.5 MB). With `lie`, its headers declare the part
 * 1 KB, so only a bound enforced while inflating catches it.
 */
export function zipBombDocx(unzipped = 300_000_000, lie = false): Buffer {
  const head = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>`,
  );
  const tail = Buffer.from("</w:body></w:document>");
  const paragraph = `<w:p><w:r><w:t>${"all work and no play ".repeat(40)}</w:t></w:r></w:p>`;
  const count = Math.max(1, Math.floor((unzipped - head.length - tail.length) / paragraph.length));
  const body = Buffer.alloc(count * paragraph.length, paragraph);
  const xml = Buffer.concat([head, body, tail]);
  return docxOf(xml, lie ? 1_000 : xml.length);
}

/** A DOCX whose body is `depth` runs nested in each other: small, and deeper than any stack. */
export function nestedDocx(depth = 100_000): Buffer {
  const xml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body><w:p>${"<w:r>".repeat(depth)}<w:t>deep</w:t>${"</w:r>".repeat(depth)}</w:p></w:body></w:document>`;
  return docxOf(Buffer.from(xml, "utf8"));
}

/**
 * A valid PDF of `pages` pages that all draw the same line (one shared
 * content stream and font, inherited from the page tree), with a correct
 * xref table: 100,000 pages come to about 11 MB. The page tree is two
 * levels deep, a hundred pages a node, as PDF writers balance it.
 */
export function manyPagesPdf(pages = 100_000, line = "the same page again"): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${line}) Tj ET`;
  const fanout = 100;
  const nodes = Math.ceil(pages / fanout);
  const firstNode = 5;
  const firstPage = firstNode + nodes;
  const refs = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `${from + i} 0 R`).join(" ");
  const chunks: string[] = ["%PDF-1.4\n"];
  let length = chunks[0]?.length ?? 0;
  const offsets: number[] = [];
  const add = (object: string) => {
    offsets.push(length);
    const text = `${offsets.length} 0 obj\n${object}\nendobj\n`;
    chunks.push(text);
    length += text.length;
  };
  add("<< /Type /Catalog /Pages 2 0 R >>");
  add(
    `<< /Type /Pages /Kids [${refs(firstNode, nodes)}] /Count ${pages} /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> >>`,
  );
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  for (let n = 0; n < nodes; n++) {
    const count = Math.min(fanout, pages - n * fanout);
    add(
      `<< /Type /Pages /Parent 2 0 R /Kids [${refs(firstPage + n * fanout, count)}] /Count ${count} >>`,
    );
  }
  for (let i = 0; i < pages; i++) {
    add(`<< /Type /Page /Parent ${firstNode + Math.floor(i / fanout)} 0 R /Contents 4 0 R >>`);
  }
  const xref = length;
  const size = offsets.length + 1;
  chunks.push(`xref\n0 ${size}\n0000000000 65535 f \n`);
  for (const o of offsets) chunks.push(`${String(o).padStart(10, "0")} 00000 n \n`);
  chunks.push(`trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.from(chunks.join(""), "latin1");
}
