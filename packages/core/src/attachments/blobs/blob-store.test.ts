import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  tempDirectory,
  uniqueRedisPrefix,
} from "../../store/test-backends.ts";
import { type BlobStore, parseBlobId, readBlob, spaceOf } from "./blob-store.ts";
import { FolderBlobStore } from "./folder-blob-store.ts";
import { MemoryBlobStore } from "./memory-blob-store.ts";
import { openBlobStore } from "./open-blob-store.ts";
import { writeBlob, writeBytes } from "./write-blob.ts";

async function* chunks(total: number, size = 100_000): AsyncIterable<Uint8Array> {
  for (let sent = 0; sent < total; sent += size)
    yield new Uint8Array(Math.min(size, total - sent)).fill(sent % 251);
}

function blobStoreSuite(name: string, open: () => Promise<{ store: BlobStore; cleanup(): Promise<void> }>) {
  describe(`blob store: ${name}`, () => {
    let store: BlobStore;
    let cleanup: () => Promise<void>;
    const space = spaceOf("slack:T1:C1:1.0");
    const other = spaceOf("slack:T1:C1:2.0");

    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    it("stores bytes under their SHA-256 and reads them back in order", async () => {
      const bytes = new TextEncoder().encode("hello, attachments");
      const written = await writeBytes(store, space, bytes);
      if (written.kind !== "stored") throw new Error("not stored");
      expect(written.ref.digest).toBe(createHash("sha256").update(bytes).digest("hex"));
      expect(written.size).toBe(bytes.byteLength);
      expect(Buffer.from((await readBlob(store, written.ref))!).toString()).toBe("hello, attachments");
      expect(await store.has(written.ref)).toBe(true);
    });

    it("keeps a multi-megabyte blob whole across many chunks", async () => {
      const written = await writeBlob(store, space, chunks(3_000_000), { maxBytes: 10_000_000 });
      if (written.kind !== "stored") throw new Error("not stored");
      expect((await readBlob(store, written.ref))?.byteLength).toBe(3_000_000);
    });

    it("stops at the cap and keeps nothing of an oversized file", async () => {
      let aborted = false;
      const written = await writeBlob(store, space, chunks(5_000_000), {
        maxBytes: 1_000_000,
        onOverflow: () => {
          aborted = true;
        },
      });
      expect(written).toEqual({ kind: "too-large", readBytes: 1_100_000 });
      expect(aborted).toBe(true);
      expect(await store.deleteSpace(space)).toBe(0);
    });

    it("stores the same file once per space; /forget deletes one space and nothing else", async () => {
      const bytes = new TextEncoder().encode("same file");
      const first = await writeBytes(store, space, bytes);
      const second = await writeBytes(store, space, bytes);
      const elsewhere = await writeBytes(store, other, bytes);
      if (first.kind !== "stored" || second.kind !== "stored" || elsewhere.kind !== "stored")
        throw new Error("not stored");
      expect(second.ref).toEqual(first.ref);
      expect(await store.deleteSpace(space)).toBe(1);
      expect(await store.has(first.ref)).toBe(false);
      expect(await store.open(first.ref)).toBeUndefined();
      expect(await store.has(elsewhere.ref)).toBe(true);
    });

    it("refuses references that did not come from it (no path or key from outside)", async () => {
      await expect(store.has({ space: "../../etc", digest: "passwd" })).rejects.toThrow(/not a blob/);
      expect(parseBlobId("../x/y")).toBeUndefined();
      expect(parseBlobId(`${space}/${"a".repeat(64)}`)).toEqual({ space, digest: "a".repeat(64) });
    });
  });
}

blobStoreSuite("memory", async () => ({ store: new MemoryBlobStore(), cleanup: async () => {} }));

blobStoreSuite("folder", async () => {
  const dir = await tempDirectory();
  return { store: new FolderBlobStore(join(dir.path, "attachments")), cleanup: dir.remove };
});

describeWithRedis("redis", () => {
  blobStoreSuite("redis", async () => {
    const prefix = uniqueRedisPrefix("blobs");
    const store = await openBlobStore({
      blobsUrl: `${TEST_REDIS_URL}/?prefix=${prefix}`,
      storeUrl: "memory://",
      cwd: process.cwd(),
      retainDays: 1,
    });
    return { store, cleanup: async () => void (await removeRedisKeys(prefix)) };
  });
});

describe("folder blob store: retention and paths", () => {
  it("sweeps blobs older than the cutoff and leaves only digests on disk", async () => {
    const dir = await tempDirectory();
    try {
      const root = join(dir.path, "attachments");
      const store = new FolderBlobStore(root);
      const space = spaceOf("web:s:main");
      const written = await writeBytes(store, space, new TextEncoder().encode("old"));
      if (written.kind !== "stored") throw new Error("not stored");
      expect(await readdir(join(root, space))).toEqual([written.ref.digest]);
      expect(await store.sweep(Date.now() - 60_000)).toBe(0);
      expect(await store.sweep(Date.now() + 60_000)).toBe(1);
      expect(await store.has(written.ref)).toBe(false);
    } finally {
      await dir.remove();
    }
  });

  it("defaults to a folder beside the SQLite file", async () => {
    const store = await openBlobStore({
      storeUrl: "sqlite:///srv/switchboard/data/switchboard.db",
      cwd: "/",
      retainDays: 1,
    });
    expect(store.description).toBe("folder /srv/switchboard/data/attachments");
  });
});
