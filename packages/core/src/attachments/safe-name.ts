/**
 * A file name as people may see it: the sender chose it, so it is only ever shown (and given back
 * to a platform as a file's name), never used as a path. No directory part, no control or
 * bidirectional-override characters, no leading dots, at most 120 characters (the extension kept).
 */
const MAX_NAME = 120;

export function safeFileName(name: string, fallback = "file"): string {
  const base = name.split(/[/\\]/).at(-1) ?? "";
  const cleaned = base
    // C0/C1 controls and the characters that reorder or hide text (RTL overrides, zero-width): the
    // control ranges are exactly what this pattern is for.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, "")
    .replace(/\s+/g, " ")
    .replace(/^[.\s]+/, "")
    .trim();
  if (cleaned === "") return fallback;
  if (cleaned.length <= MAX_NAME) return cleaned;
  const extension = /\.[A-Za-z0-9]{1,10}$/.exec(cleaned)?.[0] ?? "";
  return `${cleaned.slice(0, MAX_NAME - extension.length - 1)}…${extension}`;
}

/** `1.2 MB`, `34 KB`, `512 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  const mb = bytes / (1024 * 1024);
  return `${mb < 10 ? mb.toFixed(1) : Math.round(mb)} MB`;
}
