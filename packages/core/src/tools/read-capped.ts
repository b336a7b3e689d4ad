/** Bytes read per character kept: UTF-8 takes up to 4 bytes a character. */
const BYTES_PER_CHAR = 4;

/**
 * The response text, cut at `maxChars` (marked as cut). Reading stops once enough bytes arrived,
 * so an endpoint that answers with gigabytes costs a few kilobytes, not the process's memory.
 */
export async function readCappedText(response: Response, maxChars: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const byteLimit = maxChars * BYTES_PER_CHAR;
  let text = "";
  let bytes = 0;
  let complete = false;
  try {
    while (bytes < byteLimit) {
      const { done, value } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    // Frees the connection when we stopped early; a no-op when the body was read to its end.
    await reader.cancel().catch(() => undefined);
  }
  if (complete) text += decoder.decode();
  return text.length > maxChars || !complete ? `${text.slice(0, maxChars)}… (truncated)` : text;
}
