import { randomBytes } from "node:crypto";
import { RESP_TYPES } from "@redis/client";
import type { RedisConnection } from "../../store/redis/redis-connection.ts";
import { type BlobRef, type BlobSink, type BlobStore, checkedRef, checkedSpace } from "./blob-store.ts";

/** Bytes per Redis value: big enough to keep round trips few, small enough to stream. */
const CHUNK_BYTES = 512 * 1024;
/** An upload that never committed (a crash mid-download) is gone after this. */
const INCOMING_TTL_MS = 60 * 60 * 1000;

/**
 * Blobs in the Redis store itself, in chunks: the default when the store is Redis, because then the
 * processes are a cluster and every worker must read what another downloaded, with nothing else to
 * run. Retention is Redis's own expiry (`retainMs`), so no sweep is needed. The cost is Redis memory
 * for up to `retainDays` of files; a deployment with many large files names a shared folder
 * (`attachments.blobs: file:///…`) instead.
 *
 * Keys: `<prefix>blob:<space>:<digest>` (chunk count), `…:<n>` (chunks), `<prefix>blob-space:<space>`
 * (the space's digests, for /forget), `<prefix>blob-in:<id>:<n>` (a write not committed yet).
 */
export class RedisBlobStore implements BlobStore {
  readonly description: string;
  readonly #client: RedisConnection;
  readonly #binary: ReturnType<RedisConnection["withTypeMapping"]>;
  readonly #prefix: string;
  readonly #retainMs: number;
  readonly #ownsClient: boolean;

  constructor(
    client: RedisConnection,
    options: { keyPrefix: string; retainMs: number; description: string; ownsClient: boolean },
  ) {
    this.#client = client;
    this.#binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    this.#prefix = options.keyPrefix;
    this.#retainMs = options.retainMs;
    this.description = options.description;
    this.#ownsClient = options.ownsClient;
  }

  async create(space: string): Promise<BlobSink> {
    checkedSpace(space);
    const id = randomBytes(8).toString("hex");
    const incoming = (n: number) => `${this.#prefix}blob-in:${id}:${n}`;
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let written = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const value = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      await this.#client.set(incoming(written), value, {
        expiration: { type: "PX", value: INCOMING_TTL_MS },
      });
      written += 1;
    };
    const drop = async () => {
      const keys = Array.from({ length: written }, (_, n) => incoming(n));
      if (keys.length > 0) await this.#client.del(keys);
    };
    return {
      write: async (chunk) => {
        pending.push(Uint8Array.from(chunk));
        pendingBytes += chunk.byteLength;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      },
      commit: async (digest) => {
        await flush();
        const meta = this.#metaKey(checkedRef({ space, digest }));
        const ttl = { expiration: { type: "PX" as const, value: this.#retainMs } };
        const known = await this.#client.get(meta);
        if (known !== null) {
          await drop();
          const chunks = Number(known);
          const multi = this.#client.multi().pExpire(meta, this.#retainMs);
          for (let n = 0; n < chunks; n++) multi.pExpire(`${meta}:${n}`, this.#retainMs);
          multi.pExpire(this.#spaceKey(space), this.#retainMs);
          await multi.exec();
          return;
        }
        const multi = this.#client.multi();
        for (let n = 0; n < written; n++) {
          multi.rename(incoming(n), `${meta}:${n}`);
          multi.pExpire(`${meta}:${n}`, this.#retainMs);
        }
        multi.set(meta, String(written), ttl);
        multi.sAdd(this.#spaceKey(space), digest);
        multi.pExpire(this.#spaceKey(space), this.#retainMs);
        await multi.exec();
      },
      abort: async () => {
        pending = [];
        pendingBytes = 0;
        await drop();
      },
    };
  }

  async open(ref: BlobRef): Promise<AsyncIterable<Uint8Array> | undefined> {
    const meta = this.#metaKey(checkedRef(ref));
    const count = await this.#client.get(meta);
    if (count === null) return undefined;
    const chunks = Number(count);
    const binary = this.#binary;
    return (async function* () {
      for (let n = 0; n < chunks; n++) {
        const value: unknown = await binary.get(`${meta}:${n}`);
        if (!Buffer.isBuffer(value)) throw new Error(`blob ${ref.digest} lost a chunk (expired while read?)`);
        yield value;
      }
    })();
  }

  async has(ref: BlobRef): Promise<boolean> {
    return (await this.#client.exists(this.#metaKey(checkedRef(ref)))) === 1;
  }

  async deleteSpace(space: string): Promise<number> {
    const spaceKey = this.#spaceKey(checkedSpace(space));
    const digests = await this.#client.sMembers(spaceKey);
    let deleted = 0;
    for (const digest of digests) {
      const meta = this.#metaKey({ space, digest });
      const count = await this.#client.get(meta);
      if (count === null) continue;
      const keys = [meta, ...Array.from({ length: Number(count) }, (_, n) => `${meta}:${n}`)];
      await this.#client.del(keys);
      deleted += 1;
    }
    await this.#client.del(spaceKey);
    return deleted;
  }

  /** Redis expires blobs itself (`retainMs` from their last store). */
  async sweep(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {
    if (this.#ownsClient && this.#client.isOpen) await this.#client.close();
  }

  #metaKey(ref: BlobRef): string {
    return `${this.#prefix}blob:${ref.space}:${ref.digest}`;
  }

  #spaceKey(space: string): string {
    return `${this.#prefix}blob-space:${space}`;
  }
}
