/**
 * Where file bytes live: outside checkpoints and keyv values, addressed by what they contain. A
 * checkpoint, a queued message or an outbox record holds only a `BlobRef` (two short strings), so
 * storing a 5 MB image costs the history a few dozen bytes.
 *
 * Blobs are grouped in *spaces*, one per conversation (a digest of its key, never the key itself:
 * keys hold user-controlled text). The same file sent twice in a conversation is stored once, and
 * `/forget` deletes a conversation's space whole, without counting references across
 * conversations. One interface, three implementations (a folder, Redis, memory), one shared suite.
 */
import { createHash } from "node:crypto";

export interface BlobRef {
  /** The conversation's space: 32 hex characters. */
  readonly space: string;
  /** SHA-256 of the bytes, hex. */
  readonly digest: string;
}

/** Bytes being written into a space; nothing is visible until `commit`. */
export interface BlobSink {
  write(chunk: Uint8Array): Promise<void>;
  /** Makes the bytes readable as `digest` (already there: the new copy is dropped, its age renewed). */
  commit(digest: string): Promise<void>;
  /** Drops what was written (a download over its cap, a failure). */
  abort(): Promise<void>;
}

export interface BlobStore {
  /** Where blobs are kept, for logs and doctor (no secrets). */
  readonly description: string;
  create(space: string): Promise<BlobSink>;
  /** The bytes in order; undefined when the blob is gone (retention, /forget). */
  open(ref: BlobRef): Promise<AsyncIterable<Uint8Array> | undefined>;
  has(ref: BlobRef): Promise<boolean>;
  /** Deletes every blob of a space; returns how many went. */
  deleteSpace(space: string): Promise<number>;
  /** Deletes blobs stored (or last stored again) before `cutoffMs`; returns how many went. */
  sweep(cutoffMs: number): Promise<number>;
  close(): Promise<void>;
}

const SPACE = /^[0-9a-f]{32}$/;
const DIGEST = /^[0-9a-f]{64}$/;

/** The space of a conversation: a digest of its key, so no user-controlled text reaches a path or key. */
export function spaceOf(conversationKey: string): string {
  return createHash("sha256").update(`space:${conversationKey}`).digest("hex").slice(0, 32);
}

export function blobId(ref: BlobRef): string {
  return `${ref.space}/${ref.digest}`;
}

/** A `space/digest` id back to a reference; undefined for anything else (it may come from a URL). */
export function parseBlobId(id: string): BlobRef | undefined {
  const [space = "", digest = "", extra] = id.split("/");
  if (extra !== undefined || !SPACE.test(space) || !DIGEST.test(digest)) return undefined;
  return { space, digest };
}

/** Refuses a reference that did not come from us: every store builds paths and keys from these. */
export function checkedRef(ref: BlobRef): BlobRef {
  if (!SPACE.test(ref.space) || !DIGEST.test(ref.digest))
    throw new TypeError(`not a blob reference: ${JSON.stringify(ref).slice(0, 200)}`);
  return ref;
}

export function checkedSpace(space: string): string {
  if (!SPACE.test(space)) throw new TypeError(`not a blob space: ${space.slice(0, 100)}`);
  return space;
}

/** Reads a whole blob into memory; only for files already bounded by `attachments.maxBytes`. */
export async function readBlob(store: BlobStore, ref: BlobRef): Promise<Buffer | undefined> {
  const body = await store.open(ref);
  if (!body) return undefined;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}
