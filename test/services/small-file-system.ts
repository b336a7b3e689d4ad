/**
 * A small file system of a test's own (tmpfs), to fill up under the embedded SQLite store and free
 * again. Mounting needs root (CAP_SYS_ADMIN): `SmallFileSystem.mount` resolves undefined where it
 * is not allowed, and the test says it was skipped.
 */
import { execFile } from "node:child_process";
import { mkdtemp, open, rm, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
/** Large pieces first, then smaller ones, until not even one more page fits. */
const PIECES = [1024 * 1024, 64 * 1024, 4 * 1024, 512].map((size) => Buffer.alloc(size, 0x61));

export class SmallFileSystem {
  readonly dir: string;
  #filler = 0;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static async mount(sizeMb: number): Promise<SmallFileSystem | undefined> {
    const dir = await mkdtemp(join(tmpdir(), "switchboard-small-fs-"));
    try {
      await run("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", dir]);
      return new SmallFileSystem(dir);
    } catch {
      await rmdir(dir);
      return undefined;
    }
  }

  /** Writes filler files until the file system is full (ENOSPC). */
  async fill(): Promise<void> {
    const path = join(this.dir, `filler-${++this.#filler}`);
    const file = await open(path, "w");
    try {
      for (const piece of PIECES) {
        try {
          for (;;) await file.write(piece);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
        }
      }
    } finally {
      await file.close().catch(() => undefined);
    }
  }

  /** Deletes the filler: the space is back. */
  async free(): Promise<void> {
    for (let index = 1; index <= this.#filler; index++)
      await rm(join(this.dir, `filler-${index}`), { force: true });
  }

  async unmount(): Promise<void> {
    await run("umount", ["-l", this.dir]).catch(() => undefined);
    await rmdir(this.dir).catch(() => undefined);
  }
}
