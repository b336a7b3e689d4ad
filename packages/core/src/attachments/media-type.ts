/**
 * What a file is, decided by its bytes (file-type reads the signature) and never by the name or
 * the type the sender declared: a `.png` that is a PDF is read as a PDF, a `.pdf` that is text is
 * read as text. The name only refines the kind of *text* (CSV, Markdown, JSON), where there is no
 * signature to read.
 */
import { fileTypeFromBuffer } from "file-type";

/** How the model gets at a file of this type. */
export type AttachmentKind = "image" | "pdf" | "docx" | "audio" | "video" | "text" | "other";

export interface SniffedType {
  readonly mediaType: string;
  readonly kind: AttachmentKind;
}

/** Images every provider we support takes as image input. */
const MODEL_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

const TEXT_BY_EXTENSION: Readonly<Record<string, string>> = {
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  md: "text/markdown",
  markdown: "text/markdown",
  json: "application/json",
  html: "text/html",
  htm: "text/html",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
};

export async function sniffMediaType(head: Uint8Array, name: string): Promise<SniffedType> {
  const found = await fileTypeFromBuffer(head).catch(() => undefined);
  if (found) {
    // `audio/ogg; codecs=opus` → `audio/ogg`: platforms and models take the bare type.
    const mediaType = found.mime.split(";")[0]!.trim();
    return { mediaType, kind: kindOf(mediaType) };
  }
  if (head.byteLength > 0 && looksLikeText(head)) {
    const extension = /\.([A-Za-z0-9]{1,10})$/.exec(name)?.[1]?.toLowerCase() ?? "";
    return { mediaType: TEXT_BY_EXTENSION[extension] ?? "text/plain", kind: "text" };
  }
  return { mediaType: "application/octet-stream", kind: "other" };
}

export function kindOf(mediaType: string): AttachmentKind {
  if (MODEL_IMAGES.has(mediaType)) return "image";
  if (mediaType === "application/pdf") return "pdf";
  if (mediaType === DOCX) return "docx";
  if (mediaType.startsWith("audio/")) return "audio";
  if (mediaType.startsWith("video/")) return "video";
  if (mediaType.startsWith("text/") || mediaType === "application/json") return "text";
  return "other";
}

/**
 * Text is UTF-8 without NUL bytes or other C0 controls besides tab, newlines and form feed. The last
 * few bytes may be a character cut by the head's end.
 */
export function looksLikeText(bytes: Uint8Array): boolean {
  const checked = bytes.byteLength > 8 ? bytes.subarray(0, bytes.byteLength - 4) : bytes;
  for (const byte of checked) {
    if (byte === 0) return false;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) return false;
  }
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(checked);
    return true;
  } catch {
    return false;
  }
}
