import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { type BlobRef, type BlobSink, type BlobStore, checkedRef, checkedSpace } from "./blob-store.ts";

/**
 * Blobs as files in a folder: `<root>/<space>/<digest>`, nothing else in the path (file names
 * people send never reach the disk). The default beside a SQLite store: one machine, one disk, no
 * server to run, and files streamed from and to disk without passing through memory whole. Writes
 * go to a hidden temporary file first and are renamed into place, so a crash leaves no half blob
 * under a digest (the temporary files are swept with the old ones).
 */
export class FolderBlobStore implements BlobStore {
  readonly description: string;
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
    this.description = `folder ${root}`;
  }

  async create(space: string): Promise<BlobSink> {
    const dir = join(this.#root, checkedSpace(space));
    await mkdir(dir, { recursive: true });
    const temporary = join(dir, `.incoming-${randomBytes(8).toString("hex")}`);
    const handle: FileHandle = await open(temporary, "wx");
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await handle.close();
    };
    return {
      write: async (chunk) => {
        await handle.write(chunk);
      },
      commit: async (digest) => {
        await close();
        const target = join(dir, checkedRef({ space, digest }).digest);
        if (await exists(target)) {
          await unlink(temporary);
          const now = new Date();
          await utimes(target, now, now);
        } else await rename(temporary, target);
      },
      abort: async () => {
        await close();
        await rm(temporary, { force: true });
      },
    };
  }

  async open(ref: BlobRef): Promise<AsyncIterable<Uint8Array> | undefined> {
    const path = this.#path(ref);
    if (!(await exists(path))) return undefined;
    return createReadStream(path, { highWaterMark: 256 * 1024 });
  }

  async has(ref: BlobRef): Promise<boolean> {
    return exists(this.#path(ref));
  }

  async deleteSpace(space: string): Promise<number> {
    const dir = join(this.#root, checkedSpace(space));
    const names = await readdir(dir).catch(() => [] as string[]);
    await rm(dir, { recursive: true, force: true });
    return names.filter((name) => !name.startsWith(".")).length;
  }

  async sweep(cutoffMs: number): Promise<number> {
    let deleted = 0;
    const spaces = await readdir(this.#root).catch(() => [] as string[]);
    for (const space of spaces) {
      const dir = join(this.#root, space);
      const names = await readdir(dir).catch(() => [] as string[]);
      let left = names.length;
      for (const name of names) {
        const path = join(dir, name);
        const info = await stat(path).catch(() => undefined);
        if (!info || info.mtimeMs >= cutoffMs) continue;
        await rm(path, { force: true });
        left -= 1;
        if (!name.startsWith(".")) deleted += 1;
      }
      if (left === 0) await rm(dir, { recursive: true, force: true });
    }
    return deleted;
  }

  async close(): Promise<void> {}

  #path(ref: BlobRef): string {
    const { space, digest } = checkedRef(ref);
    return join(this.#root, space, digest);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Moves nothing: kept so a folder named by `attachments.blobs` is created before first use. */
export async function ensureFolder(root: string): Promise<void> {
  await mkdir(root, { recursive: true });
}
