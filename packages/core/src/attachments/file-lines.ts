/**
 * How a file appears in the model's text, in memory and to the sender. One format everywhere, so
 * the model always reads the same shape: a bracketed header line naming the file, its type (from
 * its bytes) and size, then its text (or transcript) between `<<<` and `>>>` lines when it has one,
 * and a bracketed line saying where it was cut. A file that was not read says why.
 */
import type { TextReading } from "./read/read-text.ts";
import { formatBytes } from "./safe-name.ts";
import type { StoredAttachment } from "./stored-attachment.ts";

export interface FileLines {
  /** What the model reads. */
  readonly model: string;
  /** What memory keeps: name, type, size and a few words. */
  readonly summary: string;
  /** A sentence for the sender, when they should know something went wrong. */
  readonly notice?: string;
}

/** Start and end of a file's text in the model's input. */
export const TEXT_START = "<<<";
export const TEXT_END = ">>>";
const SUMMARY_WORDS = 12;

/** `notes.csv · text/csv · 2 KB` */
export function describeFile(file: Pick<StoredAttachment, "name" | "mediaType" | "size">): string {
  return `${file.name} · ${file.mediaType} · ${formatBytes(file.size)}`;
}

function firstWords(text: string): string {
  const words = text.replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
  const shown = words.slice(0, SUMMARY_WORDS).join(" ");
  return words.length > SUMMARY_WORDS ? `${shown}…` : shown;
}

function withText(header: string, text: string, cutNote: string | undefined): string {
  return [header, TEXT_START, text, TEXT_END, ...(cutNote ? [cutNote] : [])].join("\n");
}

export const fileLines = {
  image(file: StoredAttachment): FileLines {
    return {
      model: `[Image attached: ${describeFile(file)} — shown to you as an image]`,
      summary: `Image ${describeFile(file)}`,
    };
  },

  text(file: StoredAttachment, reading: TextReading, maxChars: number, pages?: number): FileLines {
    const where = pages === undefined ? "" : ` · ${pages} page${pages === 1 ? "" : "s"}`;
    const header = `[File attached: ${describeFile(file)}${where} — its text follows]`;
    const cut = reading.truncated
      ? `[${file.name} was cut: only its first ${reading.text.length.toLocaleString("en")} characters are shown (the limit is ${maxChars.toLocaleString("en")})]`
      : undefined;
    return {
      model: withText(header, reading.text, cut),
      summary: `File ${describeFile(file)}: ${firstWords(reading.text)}`,
    };
  },

  transcript(file: StoredAttachment, what: string, text: string, maxChars: number): FileLines {
    const shown = text.length > maxChars ? text.slice(0, maxChars) : text;
    const header = `[${capitalized(what)} attached: ${describeFile(file)} — its transcript follows]`;
    const cut =
      shown.length < text.length
        ? `[The transcript of ${file.name} was cut: only its first ${shown.length.toLocaleString("en")} characters are shown]`
        : undefined;
    return {
      model: withText(header, shown, cut),
      summary: `${capitalized(what)} ${describeFile(file)}: ${firstWords(text)}`,
    };
  },

  /** A file that was not read, and why; `about` names its type and size when it was downloaded. */
  skipped(name: string, reason: string, options: { about?: string; notice?: string } = {}): FileLines {
    const what = options.about ?? name;
    return {
      model: `[File attached: ${what} — not read: ${reason}]`,
      summary: `File ${what} (not read: ${reason})`,
      ...(options.notice ? { notice: options.notice } : {}),
    };
  },
};

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
