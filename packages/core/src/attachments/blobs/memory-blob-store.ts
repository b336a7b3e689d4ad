import { type BlobRef, type BlobSink, type BlobStore, checkedRef, checkedSpace } from "./blob-store.ts";

/** Blobs in process memory: for the `memory://` store and tests. Gone when the process ends. */
export class MemoryBlobStore implements BlobStore {
  readonly description = "memory";
  readonly #blobs = new Map<string, { chunks: Uint8Array[]; at: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async create(space: string): Promise<BlobSink> {
    checkedSpace(space);
    const chunks: Uint8Array[] = [];
    return {
      write: async (chunk) => {
        chunks.push(Uint8Array.from(chunk));
      },
      commit: async (digest) => {
        const key = keyOf({ space, digest });
        const existing = this.#blobs.get(key);
        this.#blobs.set(key, { chunks: existing?.chunks ?? chunks, at: this.#now() });
      },
      abort: async () => {
        chunks.length = 0;
      },
    };
  }

  async open(ref: BlobRef): Promise<AsyncIterable<Uint8Array> | undefined> {
    const blob = this.#blobs.get(keyOf(ref));
    if (!blob) return undefined;
    return (async function* () {
      yield* blob.chunks;
    })();
  }

  async has(ref: BlobRef): Promise<boolean> {
    return this.#blobs.has(keyOf(ref));
  }

  async deleteSpace(space: string): Promise<number> {
    let deleted = 0;
    for (const key of [...this.#blobs.keys()])
      if (key.startsWith(`${checkedSpace(space)}/`)) {
        this.#blobs.delete(key);
        deleted += 1;
      }
    return deleted;
  }

  async sweep(cutoffMs: number): Promise<number> {
    let deleted = 0;
    for (const [key, blob] of [...this.#blobs])
      if (blob.at < cutoffMs) {
        this.#blobs.delete(key);
        deleted += 1;
      }
    return deleted;
  }

  async close(): Promise<void> {
    this.#blobs.clear();
  }
}

function keyOf(ref: BlobRef): string {
  const { space, digest } = checkedRef(ref);
  return `${space}/${digest}`;
}
