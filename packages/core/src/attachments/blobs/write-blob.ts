import { createHash } from "node:crypto";
import type { BlobRef, BlobStore } from "./blob-store.ts";

/** Bytes kept from the start of every file for type detection (enough for file-type's formats). */
export const HEAD_BYTES = 64 * 1024;

export type WrittenBlob =
  | { readonly kind: "stored"; readonly ref: BlobRef; readonly size: number; readonly head: Uint8Array }
  | { readonly kind: "too-large"; readonly readBytes: number };

/**
 * Streams `source` into the store, hashing as it goes, and stops reading once more than `maxBytes`
 * arrived: what was written is dropped and `onOverflow` (the caller's abort of the download) runs,
 * so an oversized file costs at most `maxBytes` plus one chunk, never its whole size, in memory or
 * on disk. Memory use is one chunk plus the head, whatever the file's size.
 */
export async function writeBlob(
  store: BlobStore,
  space: string,
  source: AsyncIterable<Uint8Array>,
  options: { maxBytes: number; onOverflow?: () => void },
): Promise<WrittenBlob> {
  const sink = await store.create(space);
  const hash = createHash("sha256");
  const head = new Uint8Array(HEAD_BYTES);
  let headLength = 0;
  let size = 0;
  try {
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > options.maxBytes) {
        options.onOverflow?.();
        await sink.abort();
        return { kind: "too-large", readBytes: size };
      }
      if (headLength < HEAD_BYTES) {
        const take = Math.min(HEAD_BYTES - headLength, chunk.byteLength);
        head.set(chunk.subarray(0, take), headLength);
        headLength += take;
      }
      hash.update(chunk);
      await sink.write(chunk);
    }
  } catch (error) {
    await sink.abort();
    throw error;
  }
  const digest = hash.digest("hex");
  await sink.commit(digest);
  return { kind: "stored", ref: { space, digest }, size, head: head.slice(0, headLength) };
}

/** Stores bytes already in memory (a file the team wrote, a tool's result). */
export async function writeBytes(store: BlobStore, space: string, bytes: Uint8Array): Promise<WrittenBlob> {
  return writeBlob(store, space, oneChunk(bytes), { maxBytes: Number.MAX_SAFE_INTEGER });
}

async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}
