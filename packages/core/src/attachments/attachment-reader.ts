import type Keyv from "keyv";
import { awayFromCpu } from "../capacity/cpu-slots.ts";
import {
  type AdapterAttachments,
  AttachmentFetchError,
  type InboundAttachment,
} from "../conversation/files.ts";
import type { InboundMessage } from "../conversation/messages.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import type { AttachmentsConfig } from "./attachments-config.ts";
import { type BlobStore, readBlob, spaceOf } from "./blobs/blob-store.ts";
import { writeBlob } from "./blobs/write-blob.ts";
import { describeFile, type FileLines, fileLines } from "./file-lines.ts";
import { sniffMediaType } from "./media-type.ts";
import { readDocument } from "./read/read-document.ts";
import { readTextStart } from "./read/read-text.ts";
import { TranscriptionError, transcribe } from "./read/transcribe.ts";
import { formatBytes, safeFileName } from "./safe-name.ts";
import type { PreparedAttachments, StoredAttachment } from "./stored-attachment.ts";

const CHARS_PER_TOKEN = 4;

export interface AttachmentReaderOptions {
  readonly config: AttachmentsConfig;
  readonly blobs: BlobStore;
  readonly store: Store;
  /** The adapter that reaches a platform's files; undefined: that platform's files are not read. */
  readonly sourceFor: (platform: string) => AdapterAttachments | undefined;
  readonly logger: Logger;
  readonly fetchImpl?: typeof fetch;
}

/** What a turn's reader needs to know about the model that will answer. */
export interface ReadContext {
  readonly key: string;
  readonly signal: AbortSignal;
  /** The answering model takes image input; false: images are described, and the sender told once. */
  readonly imagesAccepted: boolean;
}

/**
 * Turns the files of a turn's messages into what the model reads. Each file is downloaded through
 * its platform's adapter into the blob store (streamed, stopped at `maxBytes`), typed by its bytes,
 * then read as its type allows: images stay references (the model sees them as image blocks), text
 * and documents become text within `maxTextTokens`, audio is transcribed. Everything skipped or cut
 * is said in the model's text; limits and refusals are also told to the sender.
 */
export class AttachmentReader {
  readonly #options: AttachmentReaderOptions;
  /** Which sender was told once that the model cannot see images, per conversation. */
  readonly #told: Keyv<boolean>;
  /** The files of each message, for the console's transcript (kept as long as the files). */
  readonly #byMessage: Keyv<StoredAttachment[]>;

  constructor(options: AttachmentReaderOptions) {
    this.#options = options;
    this.#told = options.store.namespace<boolean>("attachment-notices");
    this.#byMessage = options.store.namespace<StoredAttachment[]>("attachments-by-message");
  }

  get blobs(): BlobStore {
    return this.#options.blobs;
  }

  /** Undefined when none of the messages carries a file. */
  async read(
    messages: readonly InboundMessage[],
    context: ReadContext,
  ): Promise<PreparedAttachments | undefined> {
    if (!messages.some((message) => (message.attachments?.length ?? 0) > 0)) return undefined;
    const lines: FileLines[] = [];
    const images: StoredAttachment[] = [];
    const stored: StoredAttachment[] = [];
    for (const message of messages) {
      const kept: StoredAttachment[] = [];
      for (const [index, attachment] of (message.attachments ?? []).entries()) {
        const read = await this.#readOne(message, attachment, index, context);
        lines.push(read.lines);
        if (read.stored) {
          kept.push(read.stored);
          if (read.stored.kind === "image" && context.imagesAccepted) images.push(read.stored);
        }
      }
      stored.push(...kept);
      if (kept.length > 0)
        await this.#byMessage.set(
          `${message.conversation.platform}:${message.id}`,
          kept,
          this.#options.config.retainDays * 24 * 60 * 60 * 1000,
        );
    }
    const notices = lines.flatMap((line) => (line.notice ? [line.notice] : []));
    if (images.length === 0 && stored.some((file) => file.kind === "image") && !context.imagesAccepted) {
      if (!(await this.#told.get(`images:${context.key}`))) {
        notices.push(
          "The model I run on cannot look at images, so I only know the names, types and sizes of the pictures you send.",
        );
        await this.#told.set(`images:${context.key}`, true);
      }
    }
    return {
      modelText: lines.map((line) => line.model).join("\n\n"),
      images,
      stored,
      summary: lines.map((line) => line.summary),
      notices,
    };
  }

  /** The files stored for one message (the console's transcript). */
  async filesOf(platform: string, messageId: string): Promise<StoredAttachment[]> {
    return (await this.#byMessage.get(`${platform}:${messageId}`)) ?? [];
  }

  async #readOne(
    message: InboundMessage,
    attachment: InboundAttachment,
    index: number,
    context: ReadContext,
  ): Promise<{ lines: FileLines; stored?: StoredAttachment }> {
    const { config, logger } = this.#options;
    const name = safeFileName(attachment.name);
    const limit = formatBytes(config.maxBytes);
    if (index >= config.maxPerMessage)
      return {
        lines: fileLines.skipped(name, `only the first ${config.maxPerMessage} files of a message are read`, {
          notice: `I read only the first ${config.maxPerMessage} files of a message; ${name} was left out.`,
        }),
      };
    if (attachment.declaredSize !== undefined && attachment.declaredSize > config.maxBytes)
      return { lines: tooLarge(name, limit) };
    const source = this.#options.sourceFor(message.conversation.platform);
    if (!source) return { lines: fileLines.skipped(name, "files from this platform cannot be downloaded") };

    const download = new AbortController();
    const signal = AbortSignal.any([context.signal, download.signal]);
    let written: Awaited<ReturnType<typeof writeBlob>>;
    try {
      // A download waits on the platform: the turn holds no CPU slot meanwhile.
      written = await awayFromCpu(async () => {
        const body = await source.open(attachment, signal);
        return writeBlob(this.#options.blobs, spaceOf(context.key), body.body, {
          maxBytes: config.maxBytes,
          onOverflow: () => download.abort(new Error("over the attachment size limit")),
        });
      });
    } catch (error) {
      context.signal.throwIfAborted();
      const refused = error instanceof AttachmentFetchError ? error : undefined;
      logger.error("could not download an attachment", {
        key: context.key,
        platform: message.conversation.platform,
        messageId: message.id,
        file: name,
        ...(refused?.operatorHint ? { fix: refused.operatorHint } : {}),
        ...(refused?.status === undefined ? {} : { status: refused.status }),
        error,
      });
      const sentence = refused?.userMessage ?? `I could not download ${name}; please send it again.`;
      return { lines: fileLines.skipped(name, "the download failed", { notice: sentence }) };
    }
    if (written.kind === "too-large") return { lines: tooLarge(name, limit) };

    const sniffed = await sniffMediaType(written.head, name);
    const stored: StoredAttachment = { name, ...sniffed, size: written.size, blob: written.ref };
    return { lines: await this.#describe(stored, attachment, context), stored };
  }

  async #describe(
    file: StoredAttachment,
    attachment: InboundAttachment,
    context: ReadContext,
  ): Promise<FileLines> {
    const { config, blobs } = this.#options;
    const maxChars = config.maxTextTokens * CHARS_PER_TOKEN;
    const about = describeFile(file);
    switch (file.kind) {
      case "image":
        return context.imagesAccepted
          ? fileLines.image(file)
          : fileLines.skipped(file.name, "the model I run on cannot see images", { about });
      case "text": {
        const body = await blobs.open(file.blob);
        if (!body) return fileLines.skipped(file.name, "it was deleted before it could be read", { about });
        return fileLines.text(file, await readTextStart(body, maxChars), maxChars);
      }
      case "pdf":
      case "docx": {
        const bytes = await readBlob(blobs, file.blob);
        if (!bytes) return fileLines.skipped(file.name, "it was deleted before it could be read", { about });
        // Read in a thread of its own: this one's CPU slot is free meanwhile.
        const kind = file.kind;
        const reading = await awayFromCpu(() =>
          readDocument(
            { kind, bytes, maxChars },
            { timeoutMs: config.pdfTimeoutSeconds * 1000, memoryMb: config.pdfMemoryMb },
          ),
        );
        if (reading.ok) {
          if (reading.text.trim() === "")
            return fileLines.skipped(file.name, "it has no text layer (a scan or only images)", { about });
          return fileLines.text(
            file,
            reading,
            maxChars,
            reading.ok && "pages" in reading ? reading.pages : undefined,
          );
        }
        this.#options.logger.warn("could not read a document", {
          key: context.key,
          file: file.name,
          problem: reading.problem,
          detail: reading.detail,
        });
        return fileLines.skipped(file.name, documentProblem(file.kind, reading.problem), { about });
      }
      case "audio":
        return this.#transcribe(file, attachment, context);
      case "video":
        if (attachment.voice) return this.#transcribe(file, attachment, context);
        return fileLines.skipped(file.name, "videos are not supported", { about });
      case "other":
        return fileLines.skipped(file.name, `unsupported type (${file.mediaType})`, { about });
    }
  }

  async #transcribe(file: StoredAttachment, attachment: InboundAttachment, context: ReadContext) {
    const { config, blobs, logger } = this.#options;
    const about = describeFile(file);
    const what = attachment.voice ? "voice note" : "audio file";
    const { transcription } = config;
    if (!transcription)
      return fileLines.skipped(file.name, "no transcription service is set up", {
        about,
        notice: `I can't listen to audio here (no transcription service is set up), so I only know you sent the ${what} ${file.name}.`,
      });
    const bytes = await readBlob(blobs, file.blob);
    if (!bytes) return fileLines.skipped(file.name, "it was deleted before it could be heard", { about });
    try {
      const text = await awayFromCpu(() =>
        transcribe(
          transcription,
          { bytes, name: file.name, mediaType: file.mediaType },
          context.signal,
          this.#options.fetchImpl,
        ),
      );
      return fileLines.transcript(file, what, text, config.maxTextTokens * CHARS_PER_TOKEN);
    } catch (error) {
      context.signal.throwIfAborted();
      if (!(error instanceof TranscriptionError)) throw error;
      logger.error("could not transcribe an attachment", { key: context.key, file: file.name, error });
      return fileLines.skipped(file.name, "transcription failed", {
        about,
        notice: `I could not transcribe the ${what} ${file.name} just now; please try again later or write it out.`,
      });
    }
  }
}

function tooLarge(name: string, limit: string): FileLines {
  return fileLines.skipped(name, `it is larger than the ${limit} limit`, {
    notice: `${name} is larger than the ${limit} I can read, so I did not open it.`,
  });
}

function documentProblem(kind: "pdf" | "docx", problem: string): string {
  const what = kind === "pdf" ? "PDF" : "document";
  switch (problem) {
    case "encrypted":
      return `the ${what} is password-protected`;
    case "timed-out":
    case "too-complex":
      return `the ${what} is too complex to read within the limits`;
    default:
      return `the ${what} is damaged or not really a ${what}`;
  }
}
