import { isRecord } from "../receive/matrix-event.ts";

/**
 * What a send-only process asks the process that syncs (and so holds the bot's one device) to
 * encrypt: one room event's type and content. The answer is the `m.room.encrypted` content, which
 * the send-only process then sends itself, with its own idempotent transaction id.
 */
export interface EncryptionRequest {
  readonly roomId: string;
  readonly type: string;
  readonly content: Record<string, unknown>;
}

/** Carries a request to the process that holds the device and brings back its answer (BullMQ in a cluster). */
export type EncryptThroughLeader = (request: EncryptionRequest) => Promise<unknown>;

export class MalformedEncryptionRequestError extends Error {
  constructor(detail: string) {
    super(`not an encryption request: ${detail}`);
    this.name = "MalformedEncryptionRequestError";
  }
}

/** Checks a request that arrived from another process. */
export function readEncryptionRequest(value: unknown): EncryptionRequest {
  if (!isRecord(value)) throw new MalformedEncryptionRequestError("not an object");
  const { roomId, type, content } = value;
  if (typeof roomId !== "string" || !roomId.startsWith("!"))
    throw new MalformedEncryptionRequestError("no room id");
  if (typeof type !== "string" || type === "") throw new MalformedEncryptionRequestError("no event type");
  if (!isRecord(content)) throw new MalformedEncryptionRequestError("no content");
  return { roomId, type, content };
}

/** An answer is Megolm ciphertext, never the plain content: anything else is refused before sending. */
export function isMegolmContent(value: unknown): value is Record<string, unknown> {
  return (
    isRecord(value) &&
    value.algorithm === "m.megolm.v1.aes-sha2" &&
    typeof value.ciphertext === "string" &&
    typeof value.session_id === "string"
  );
}
