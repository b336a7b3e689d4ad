import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createMemoryLogger } from "../../runtime/logger.ts";
import { tempDirectory } from "../../store/test-backends.ts";
import { BlobRetention } from "./blob-retention.ts";
import { spaceOf } from "./blob-store.ts";
import { FolderBlobStore } from "./folder-blob-store.ts";
import { MemoryBlobStore } from "./memory-blob-store.ts";
import { writeBytes } from "./write-blob.ts";

const DAY = 24 * 60 * 60 * 1000;

describe("blob retention", () => {
  it("deletes files stored more than retainDays ago and keeps the rest", async () => {
    let now = Date.UTC(2026, 0, 1);
    const blobs = new MemoryBlobStore(() => now);
    const old = await writeBytes(blobs, spaceOf("k1"), new TextEncoder().encode("old"));
    now += 20 * DAY;
    const recent = await writeBytes(blobs, spaceOf("k1"), new TextEncoder().encode("recent"));
    if (old.kind !== "stored" || recent.kind !== "stored") throw new Error("not stored");
    now += 11 * DAY;
    const logger = createMemoryLogger();
    const retention = new BlobRetention({ blobs, retainDays: 30, clock: { now: () => now }, logger });
    expect(await retention.sweep()).toBe(1);
    expect(await blobs.has(old.ref)).toBe(false);
    expect(await blobs.has(recent.ref)).toBe(true);
    expect(logger.lines.map((line) => line.message)).toContain("deleted files past their retention");
  });

  it("sweeps a folder once at start and on its timer, and joins a pass already running", async () => {
    const dir = await tempDirectory();
    try {
      const blobs = new FolderBlobStore(join(dir.path, "attachments"));
      const written = await writeBytes(blobs, spaceOf("k2"), new TextEncoder().encode("x"));
      if (written.kind !== "stored") throw new Error("not stored");
      const later = { now: () => Date.now() + 2 * DAY };
      const retention = new BlobRetention({
        blobs,
        retainDays: 1,
        clock: later,
        logger: createMemoryLogger(),
      });
      const [first, second] = [retention.sweep(), retention.sweep()];
      expect(first).toBe(second);
      expect(await first).toBe(1);
      const again = await writeBytes(blobs, spaceOf("k2"), new TextEncoder().encode("y"));
      if (again.kind !== "stored") throw new Error("not stored");
      retention.start();
      await retention.stop();
      expect(await blobs.has(again.ref)).toBe(false);
    } finally {
      await dir.remove();
    }
  });
});
