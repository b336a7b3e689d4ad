/**
 * Files in and out, as adapters and core speak of them. Core decides what to download, how much,
 * what the bytes are and what the model sees; an adapter only knows how to reach its platform's
 * files with its own credentials, and how to show a file in a thread.
 */
import type { ConversationRef } from "./ref.ts";

/**
 * A file someone sent with a message, as the platform describes it. Nothing is downloaded yet: the
 * engine queues messages durably (and hands them between processes), so this is plain data, and
 * the bytes are fetched later through the adapter (`AdapterAttachments.open`) with its credentials.
 */
export interface InboundAttachment {
  /** The name the sender gave it: shown, never used as a path. */
  readonly name: string;
  /** The platform's (or sender's) claim; the bytes decide what the file is. */
  readonly declaredType?: string;
  /** The platform's claim; not trusted (a download stops at the cap whatever it says). */
  readonly declaredSize?: number;
  /** A voice note rather than an audio file (transcribed the same way; named so in the context). */
  readonly voice?: boolean;
  /**
   * Where the platform keeps it, in the adapter's own terms (file id, CDN URL it received from the
   * platform, mxc URI…). JSON only. Never a URL taken from message text.
   */
  readonly ref: Readonly<Record<string, unknown>>;
}

/** The bytes of one attachment as the platform streams them. */
export interface AttachmentBody {
  readonly body: AsyncIterable<Uint8Array>;
  /** Content-Length as the platform sent it, when it did (not trusted). */
  readonly declaredSize?: number;
}

/**
 * A download the platform refused or could not serve. `userMessage` is one sentence for the person
 * who sent the file; `operatorHint` tells the operator what to fix (a scope, a permission).
 */
export class AttachmentFetchError extends Error {
  readonly userMessage: string;
  readonly operatorHint: string | undefined;
  readonly status: number | undefined;

  constructor(
    message: string,
    options: { userMessage: string; operatorHint?: string; status?: number; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AttachmentFetchError";
    this.userMessage = options.userMessage;
    this.operatorHint = options.operatorHint;
    this.status = options.status;
  }
}

/** How an adapter reaches its platform's files (with its own credentials, on its own hosts only). */
export interface AdapterAttachments {
  /**
   * Starts the download of an attachment this adapter reported. `signal` aborts it (the engine stops
   * reading at its size cap). Throws AttachmentFetchError when the platform refuses.
   */
  open(attachment: InboundAttachment, signal: AbortSignal): Promise<AttachmentBody>;
}

/** A file the bot sends: its bytes come from the blob store, opened as often as a retry needs. */
export interface FileToSend {
  /** Safe to show and to use as the platform's file name (no path, no control characters). */
  readonly name: string;
  readonly mediaType: string;
  readonly size: number;
  /** Where the bytes are kept (the operator console links to them); absent for bytes from elsewhere. */
  readonly blob?: { readonly space: string; readonly digest: string };
  open(): Promise<AsyncIterable<Uint8Array>>;
}

/** One file shown in a thread, once its bytes are on the platform (`AdapterFiles.upload`). */
export interface FileMessage {
  readonly conversation: ConversationRef;
  readonly file: FileToSend;
  /** What `upload` returned for this file (recorded in the outbox before this post). */
  readonly upload: string;
  readonly replyTo?: string;
  readonly agent?: string;
  /** The same for every attempt to show this file; see OutboundMessage.idempotencyKey. */
  readonly idempotencyKey: string;
}

/**
 * How an adapter sends files natively. Two steps, so the outbox can record the upload before the
 * message that shows it: a crash between them reuses the upload instead of sending a second copy.
 */
export interface AdapterFiles {
  /** The largest file the platform takes from a bot. */
  readonly maxUploadBytes: number;
  /**
   * Puts the bytes on the platform without showing them; returns the platform's reference (file id,
   * mxc URI). A platform whose post carries the bytes idempotently (Discord, with a nonce) returns
   * a reference to the bytes instead, and `post` sends them.
   */
  upload(conversation: ConversationRef, file: FileToSend): Promise<string>;
  /** Shows the uploaded file in the conversation's thread. */
  post(message: FileMessage): Promise<{ id: string; conversation: ConversationRef }>;
  /** The message an earlier attempt posted for this upload, when the platform can tell (recovery). */
  findPosted?(message: FileMessage): Promise<{ id: string; conversation: ConversationRef } | undefined>;
}
