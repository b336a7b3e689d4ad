import type { BlobRef } from "./blobs/blob-store.ts";
import type { AttachmentKind } from "./media-type.ts";

/** A file that was downloaded (or made by the team) and is kept in the blob store. */
export interface StoredAttachment {
  /** Safe to show (see safeFileName); never a path. */
  readonly name: string;
  /** As sniffed from the bytes. */
  readonly mediaType: string;
  readonly kind: AttachmentKind;
  readonly size: number;
  readonly blob: BlobRef;
}

/**
 * What a turn's files give the team: text for the model (what each file is, its text, what was
 * skipped or cut and why), the images it may look at, and what the sender should be told.
 */
export interface PreparedAttachments {
  /** Appended to the user's text in the model's history (and checkpoint): bounded text, no bytes. */
  readonly modelText: string;
  /** Images the model sees as image blocks: loaded from the blob store at each model call. */
  readonly images: readonly StoredAttachment[];
  /** Every file kept, in order (the console shows them). */
  readonly stored: readonly StoredAttachment[];
  /** One line per file saying what it was: what memory records (and `search_memory` finds). */
  readonly summary: readonly string[];
  /** Sentences for the sender, shown with the answer: limits hit, downloads refused, audio unheard. */
  readonly notices: readonly string[];
}

/** The `additional_kwargs` key under which a human message lists the images it carries (references only). */
export const IMAGES_KEY = "switchboard_images";

/** A file the bot sends: made by the team (`create_file`) or returned by a tool, kept in the blob store. */
export interface OutboundFile {
  readonly name: string;
  readonly mediaType: string;
  readonly size: number;
  readonly blob: BlobRef;
}

/** The ToolMessage artifact key a tool puts the files it returns under. */
export const FILES_ARTIFACT_KEY = "switchboardFiles";
