/** Bytes read per character kept: UTF-8 takes up to 4 bytes a character. */
const BYTES_PER_CHAR = 4;

export interface TextReading {
  readonly text: string;
  /** Part of the text was left out (the file was longer than the budget). */
  readonly truncated: boolean;
}

/**
 * The start of a text file, at most `maxChars` characters, cut at a line end where one is near.
 * Reading stops once enough bytes arrived, so a large file costs its first few kilobytes only.
 */
export async function readTextStart(body: AsyncIterable<Uint8Array>, maxChars: number): Promise<TextReading> {
  const decoder = new TextDecoder();
  const byteLimit = maxChars * BYTES_PER_CHAR;
  let text = "";
  let bytes = 0;
  let complete = true;
  for await (const chunk of body) {
    if (bytes >= byteLimit) {
      complete = false;
      break;
    }
    bytes += chunk.byteLength;
    text += decoder.decode(chunk, { stream: true });
  }
  if (complete) text += decoder.decode();
  if (complete && text.length <= maxChars) return { text, truncated: false };
  return { text: cutAtLine(text, maxChars), truncated: true };
}

/** `text` shortened to `maxChars`, at the last line end in its final fifth when there is one. */
export function cutAtLine(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  const lineEnd = cut.lastIndexOf("\n");
  return lineEnd > maxChars * 0.8 ? cut.slice(0, lineEnd) : cut;
}
