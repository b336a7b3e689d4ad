import {
  type AdapterAttachments,
  type AdapterFiles,
  type AttachmentBody,
  AttachmentFetchError,
  type FileMessage,
  type FileToSend,
  fetchPlatformFile,
  type InboundAttachment,
} from "@switchboard/core/adapter";
import type { MatrixClient } from "matrix-bot-sdk";
import { placeOf } from "../conversation.ts";
import { AttachmentDecryptionError, attachmentKeys, encryptAttachment } from "../crypto/attachments.ts";
import { isRecord } from "../receive/matrix-event.ts";
import { parseMxc } from "../receive/media-message.ts";
import type { RoomDirectory } from "../receive/room-directory.ts";
import { describeRequestFailure } from "../sdk/request-failure.ts";
import type { MessagePoster } from "../send/message-poster.ts";
import { decryptingStream } from "./decrypting-stream.ts";

/** Synapse's default `max_upload_size`; a homeserver set lower refuses the upload (M_TOO_LARGE). */
export const MATRIX_UPLOAD_LIMIT = 50 * 1024 * 1024;

export const MEDIA_FORBIDDEN_HINT =
  "the homeserver refused the bot's access token for its media repository: check that the token is valid and the media is not quarantined";

type MediaClient = Pick<MatrixClient, "doRequest" | "uploadContent" | "homeserverUrl" | "accessToken">;

/** An upload as the outbox records it: the mxc URI, and for an encrypted room the file's keys. */
interface RecordedUpload {
  readonly url?: string;
  readonly file?: Record<string, unknown>;
}

/**
 * Files to and from the homeserver's media repository. Downloads go through the authenticated
 * endpoints (`/_matrix/client/v1/media/download`, with the access token) and fall back to the legacy
 * `/_matrix/media/v3/download` only on a homeserver that does not offer them (it says so in
 * `/_matrix/client/versions`). Only the homeserver itself is ever asked, whatever server the `mxc://`
 * names (it fetches remote media itself). A file from an encrypted room is decrypted as it streams.
 *
 * Uploads: the bytes to `/_matrix/media/v3/upload` (encrypted first in an encrypted room, the keys
 * then travel in the event), recorded by the outbox; then an `m.image` / `m.audio` / `m.video` /
 * `m.file` event showing it, sent with a transaction id derived from the outbox's key, so a post
 * repeated after a crash returns the event the homeserver already made.
 */
export class MatrixMedia {
  readonly #client: MediaClient;
  readonly #rooms: Pick<RoomDirectory, "isEncrypted">;
  readonly #poster: Pick<MessagePoster, "postContent">;
  #authenticated: Promise<boolean> | undefined;

  constructor(
    client: MediaClient,
    rooms: Pick<RoomDirectory, "isEncrypted">,
    poster: Pick<MessagePoster, "postContent">,
  ) {
    this.#client = client;
    this.#rooms = rooms;
    this.#poster = poster;
  }

  readonly attachments: AdapterAttachments = {
    open: (attachment, signal) => this.#download(attachment, signal),
  };

  readonly files: AdapterFiles = {
    maxUploadBytes: MATRIX_UPLOAD_LIMIT,
    upload: (conversation, file) => this.#upload(placeOf(conversation).roomId, file),
    post: (message) => this.#post(message),
  };

  async #download(attachment: InboundAttachment, signal: AbortSignal): Promise<AttachmentBody> {
    const encrypted = isRecord(attachment.ref.file) ? attachment.ref.file : undefined;
    const mxc = parseMxc(encrypted ? encrypted.url : attachment.ref.url);
    if (!mxc)
      throw new AttachmentFetchError(`${attachment.name} has no mxc:// URL`, {
        userMessage: `I could not open ${attachment.name}: it is not stored on Matrix.`,
      });
    if (encrypted) unreadableKeys(attachment.name, encrypted);
    const base = this.#client.homeserverUrl.replace(/\/+$/, "");
    const media = `${encodeURIComponent(mxc.server)}/${encodeURIComponent(mxc.mediaId)}`;
    const path = (await this.#authenticatedMedia())
      ? `/_matrix/client/v1/media/download/${media}`
      : `/_matrix/media/v3/download/${media}`;
    const downloaded = await fetchPlatformFile({
      url: `${base}${path}`,
      name: attachment.name,
      platform: "Matrix",
      allowedOrigins: [new URL(base).origin],
      headers: { authorization: `Bearer ${this.#client.accessToken}` },
      signal,
      forbiddenHint: MEDIA_FORBIDDEN_HINT,
    });
    return encrypted ? { body: decryptingStream(downloaded.body, encrypted) } : downloaded;
  }

  /** Whether the homeserver serves media through the authenticated endpoints (Matrix 1.11). */
  #authenticatedMedia(): Promise<boolean> {
    this.#authenticated ??= this.#client
      .doRequest("GET", "/_matrix/client/versions")
      .then(offersAuthenticatedMedia, () => {
        // Asked again next time; meanwhile the current endpoints (a homeserver may not say).
        this.#authenticated = undefined;
        return true;
      });
    return this.#authenticated;
  }

  async #upload(roomId: string, file: FileToSend): Promise<string> {
    const chunks: Uint8Array[] = [];
    for await (const chunk of await file.open()) chunks.push(chunk);
    const bytes = Buffer.concat(chunks);
    try {
      if (await this.#rooms.isEncrypted(roomId)) {
        // The homeserver keeps ciphertext under no name; the name and type travel encrypted in the event.
        const { data, info } = encryptAttachment(bytes);
        const url = await this.#client.uploadContent(data, "application/octet-stream");
        return JSON.stringify({ file: { ...info, url } } satisfies RecordedUpload);
      }
      const url = await this.#client.uploadContent(bytes, file.mediaType, file.name);
      return JSON.stringify({ url } satisfies RecordedUpload);
    } catch (error) {
      throw new Error(`the homeserver did not take ${file.name}: ${describeRequestFailure(error).message}`, {
        cause: error,
      });
    }
  }

  async #post(message: FileMessage) {
    const upload = JSON.parse(message.upload) as RecordedUpload;
    const { file } = message;
    const content = {
      msgtype: msgtypeOf(file.mediaType),
      body: file.name,
      filename: file.name,
      info: { mimetype: file.mediaType, size: file.size },
      ...(upload.file ? { file: upload.file } : { url: upload.url }),
    };
    return this.#poster.postContent(message, content, message.idempotencyKey);
  }
}

/** `v1.11` or later, or the stable flag of MSC3916 that homeservers set before they claim v1.11. */
export function offersAuthenticatedMedia(versions: unknown): boolean {
  const listed = isRecord(versions) && Array.isArray(versions.versions) ? versions.versions : [];
  const current = listed.some((version) => {
    const minor = typeof version === "string" ? /^v1\.(\d+)$/.exec(version)?.[1] : undefined;
    return minor !== undefined && Number(minor) >= 11;
  });
  const unstable =
    isRecord(versions) && isRecord(versions.unstable_features) ? versions.unstable_features : {};
  return current || unstable["org.matrix.msc3916.stable"] === true;
}

function msgtypeOf(mediaType: string): string {
  if (mediaType.startsWith("image/")) return "m.image";
  if (mediaType.startsWith("audio/")) return "m.audio";
  if (mediaType.startsWith("video/")) return "m.video";
  return "m.file";
}

/** Checks an encrypted file's description before anything is fetched. */
function unreadableKeys(name: string, file: Record<string, unknown>): void {
  try {
    attachmentKeys(file);
  } catch (error) {
    if (!(error instanceof AttachmentDecryptionError)) throw error;
    throw new AttachmentFetchError(`${name} cannot be decrypted: ${error.message}`, {
      userMessage: `I could not open ${name}: its encryption keys are not valid.`,
      cause: error,
    });
  }
}
