/**
 * Small real files made in code, for tests and the platform stand-ins: a PDF with a text layer, an
 * encrypted one, a decompression bomb, a PNG, an Ogg/Opus voice note, a CSV. Real formats, so
 * file-type, pdf.js and the guards see what they would see from people.
 */
import { createDeflate } from "node:zlib";

/** A 1×1 red PNG. */
export const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64",
);

/** A PNG padded to `bytes` (an image of a given size: a chunk after IEND is ignored by readers). */
export function pngOfSize(bytes: number): Buffer {
  return Buffer.concat([PNG_1X1, Buffer.alloc(Math.max(0, bytes - PNG_1X1.byteLength), 7)]);
}

function pdfFrom(objects: string[], trailerExtra = ""): Buffer {
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (const [index, object] of objects.entries()) {
    offsets.push(Buffer.byteLength(body, "latin1"));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  }
  const xref = Buffer.byteLength(body, "latin1");
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}

function pdfObjects(content: string, contentDict = ""): string[] {
  return [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${Buffer.byteLength(content, "latin1")} ${contentDict}>>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
}

/** A one-page PDF whose text layer reads `text` (ASCII). */
export function pdfWithText(text: string): Buffer {
  const escaped = text.replace(/[()\\]/g, (c) => `\\${c}`);
  return pdfFrom(pdfObjects(`BT /F1 12 Tf 72 720 Td (${escaped}) Tj ET`));
}

/** A PDF protected by a user password (Standard security handler): pdf.js asks for the password. */
export function encryptedPdf(): Buffer {
  const objects = pdfObjects("BT /F1 12 Tf 72 720 Td (secret) Tj ET");
  objects.push(`<< /Filter /Standard /V 1 /R 2 /O <${"ab".repeat(32)}> /U <${"cd".repeat(32)}> /P -4 >>`);
  return pdfFrom(objects, `/Encrypt ${objects.length} 0 R /ID [<${"01".repeat(16)}> <${"01".repeat(16)}>] `);
}

/** Bytes that start like a PDF and then are not one. */
export function malformedPdf(): Buffer {
  return Buffer.from(
    "%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> garbage\x00\x01\x02 trailer <<>>",
    "latin1",
  );
}

/** A PDF whose one content stream inflates to `inflatedBytes` of spaces (made without holding them). */
export async function bombPdf(inflatedBytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on("data", (chunk: Buffer) => parts.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on("end", resolve);
    deflate.on("error", reject);
  });
  const block = Buffer.alloc(1024 * 1024, 0x20);
  for (let written = 0; written < inflatedBytes; written += block.byteLength) {
    if (!deflate.write(block)) await new Promise((resolve) => deflate.once("drain", resolve));
  }
  deflate.end();
  await done;
  const stream = Buffer.concat(parts);
  const head = pdfObjects("").slice(0, 3);
  const before = `%PDF-1.4\n${head.map((object, index) => `${index + 1} 0 obj\n${object}\nendobj\n`).join("")}`;
  return Buffer.concat([
    Buffer.from(
      `${before}4 0 obj\n<< /Length ${stream.byteLength} /Filter /FlateDecode >>\nstream\n`,
      "latin1",
    ),
    stream,
    Buffer.from(
      `\nendstream\nendobj\n5 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\ntrailer\n<< /Size 6 /Root 1 0 R >>\n%%EOF\n`,
      "latin1",
    ),
  ]);
}

/** The first page of an Ogg Opus stream: enough for type detection (`audio/ogg` / opus). */
export function oggVoiceNote(extraBytes = 2_000): Buffer {
  const opusHead = Buffer.concat([
    Buffer.from("OpusHead", "latin1"),
    Buffer.from([1, 1, 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0]),
  ]);
  const header = Buffer.alloc(27);
  header.write("OggS", 0, "latin1");
  header[4] = 0;
  header[5] = 2;
  header[26] = 1;
  return Buffer.concat([header, Buffer.from([opusHead.byteLength]), opusHead, Buffer.alloc(extraBytes, 1)]);
}

export const SAMPLE_CSV = "region,revenue\nnorth,1200\nsouth,950\n";
