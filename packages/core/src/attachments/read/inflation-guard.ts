/**
 * Decompression-bomb checks run before a parser sees a document. A PDF's Flate streams and a docx's
 * zip entries are inflated here with Node's zlib and a hard output cap (`maxOutputLength`), stream by
 * stream against one budget: a file that would expand past it is refused before pdf.js or the zip
 * reader allocate anything. (Their buffers live outside the JavaScript heap, where the reader
 * thread's heap limit does not reach.) Written by hand because no library offers a capped scan.
 */
import { inflateRawSync, inflateSync } from "node:zlib";

/** True when every compressed part of the document inflates within `budgetBytes` in total. */
export function inflatesWithin(kind: "pdf" | "docx", bytes: Uint8Array, budgetBytes: number): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return kind === "pdf" ? pdfWithin(buffer, budgetBytes) : zipWithin(buffer, budgetBytes);
  } catch (error) {
    if (error instanceof RangeError) return false;
    // Not inflatable here (a damaged stream): the parser decides what it makes of it.
    return true;
  }
}

function pdfWithin(pdf: Buffer, budget: number): boolean {
  let left = budget;
  let from = 0;
  for (;;) {
    const start = pdf.indexOf("stream", from, "latin1");
    if (start === -1) return true;
    // "endstream" also contains "stream": only a keyword followed by a line end opens a stream.
    let dataStart = start + 6;
    if (pdf[dataStart] === 0x0d) dataStart += 1;
    if (pdf[dataStart] !== 0x0a || pdf.subarray(Math.max(0, start - 3), start).toString("latin1") === "end") {
      from = start + 6;
      continue;
    }
    dataStart += 1;
    const end = pdf.indexOf("endstream", dataStart, "latin1");
    if (end === -1) return true;
    const dictionary = pdf.subarray(Math.max(0, start - 1024), start).toString("latin1");
    const lastDict = dictionary.lastIndexOf("<<");
    if (lastDict !== -1 && /\/FlateDecode/.test(dictionary.slice(lastDict))) {
      const inflated = safeInflate(pdf.subarray(dataStart, end), left, false);
      left -= inflated;
    }
    from = end + 9;
  }
}

/** Inflated size, or RangeError when past `cap`; damaged data counts what came out before the damage. */
function safeInflate(data: Buffer, cap: number, raw: boolean): number {
  if (cap <= 0) throw new RangeError("inflation budget spent");
  try {
    return (raw ? inflateRawSync : inflateSync)(data, { maxOutputLength: cap, finishFlush: 2 }).byteLength;
  } catch (error) {
    if (error instanceof RangeError || (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
      throw new RangeError("inflation budget spent");
    return 0;
  }
}

function zipWithin(zip: Buffer, budget: number): boolean {
  // The end-of-central-directory record sits in the last 64 KB + 22 bytes.
  const tail = Math.max(0, zip.byteLength - 65_557);
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < tail || eocd === -1) return true;
  const entries = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  let left = budget;
  for (let index = 0; index < entries; index++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) return true;
    const method = zip.readUInt16LE(offset + 10);
    const compressed = zip.readUInt32LE(offset + 20);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const local = zip.readUInt32LE(offset + 42);
    offset += 46 + nameLength + extraLength + commentLength;
    if (zip.readUInt32LE(local) !== 0x04034b50) continue;
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataStart, dataStart + compressed);
    left -= method === 8 ? safeInflate(data, left, true) : data.byteLength;
    if (left < 0) return false;
  }
  return true;
}
