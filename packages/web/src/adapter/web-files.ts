import { type ConversationRef, encodeConversationKey } from "@switchboard/core";
import {
  type AdapterAttachments,
  type AdapterFiles,
  AttachmentFetchError,
  type FileMessage,
  type FileToSend,
  type InboundAttachment,
} from "@switchboard/core/adapter";
import { type BlobStore, blobId, parseBlobId, spaceOf, writeBlob } from "@switchboard/core/host";

/** A file picked in the chat's upload control, as the browser sent it. */
export interface WebUpload {
  readonly name: string;
  /** The browser's guess from the file name; the bytes decide. */
  readonly type: string;
  readonly bytes: AsyncIterable<Uint8Array>;
}

/** Where the web chat keeps files: the process's blob store, and the largest file it takes. */
export interface WebFileStore {
  readonly blobs: BlobStore;
  readonly maxBytes: number;
}

/** A file too large for the chat: refused before the message is sent. */
export class WebUploadTooLargeError extends Error {
  constructor(name: string, maxBytes: number) {
    super(`${name} is larger than the ${Math.floor(maxBytes / (1024 * 1024))} MB a file may be`);
    this.name = "WebUploadTooLargeError";
  }
}

/**
 * The web chat's files. The browser is in this process, so an upload is put straight into the blob
 * store (in the conversation's space: `/forget` deletes it with the rest) and the message carries
 * its reference; reading the attachment opens that blob. Files the team sends are already in the
 * blob store: "uploading" one names its blob, and the transcript links to it.
 */
export class WebFiles {
  #store: WebFileStore | undefined;

  use(store: WebFileStore): void {
    this.#store = store;
  }

  get enabled(): boolean {
    return this.#store !== undefined;
  }

  /** Stores the files of a message about to be sent; they become its attachments. */
  async keep(conversation: ConversationRef, uploads: readonly WebUpload[]): Promise<InboundAttachment[]> {
    const store = this.#required();
    const space = spaceOf(encodeConversationKey(conversation));
    const kept: InboundAttachment[] = [];
    for (const upload of uploads) {
      const written = await writeBlob(store.blobs, space, upload.bytes, { maxBytes: store.maxBytes });
      if (written.kind === "too-large") throw new WebUploadTooLargeError(upload.name, store.maxBytes);
      kept.push({
        name: upload.name,
        ...(upload.type ? { declaredType: upload.type } : {}),
        declaredSize: written.size,
        ref: { blob: blobId(written.ref) },
      });
    }
    return kept;
  }

  readonly attachments: AdapterAttachments = {
    open: async (attachment: InboundAttachment) => {
      const ref = typeof attachment.ref.blob === "string" ? parseBlobId(attachment.ref.blob) : undefined;
      const body = ref ? await this.#store?.blobs.open(ref) : undefined;
      if (!body)
        throw new AttachmentFetchError(`${attachment.name} is not kept any more`, {
          userMessage: `${attachment.name} is no longer kept here; please upload it again.`,
        });
      return { body };
    },
  };

  readonly files: AdapterFiles = {
    maxUploadBytes: Number.MAX_SAFE_INTEGER,
    upload: async (conversation: ConversationRef, file: FileToSend) => {
      if (file.blob) return blobId(file.blob);
      const written = await writeBlob(
        this.#required().blobs,
        spaceOf(encodeConversationKey(conversation)),
        await file.open(),
        { maxBytes: Number.MAX_SAFE_INTEGER },
      );
      if (written.kind !== "stored") throw new Error(`${file.name} could not be kept`);
      return blobId(written.ref);
    },
    // The transcript shows it (the console records every file post); nothing else to do here.
    post: async (message: FileMessage) => ({
      id: `wf-${message.idempotencyKey}`,
      conversation: message.conversation,
    }),
  };

  #required(): WebFileStore {
    if (!this.#store) throw new Error("files are off in this chat (attachments.enabled is false)");
    return this.#store;
  }
}
