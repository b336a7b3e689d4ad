import { randomUUID } from "node:crypto";
import type Keyv from "keyv";
import { LRUCache } from "lru-cache";
import { BatchedWrites } from "./batched-writes.ts";
import type { AtomicStore, Store } from "./types.ts";

export interface PartitionedLogOptions {
  /** Namespace prefix: the log keeps `<name>-counts` and `<name>-items`, and claims slots as `<name>:…`. */
  readonly name: string;
  /** Every key expires this long after its last write: the log's retention. */
  readonly ttlMs: number;
  /** This process's partition; a fresh random id per process by default. */
  readonly writerId?: string;
  /** How many buckets' counters and writer registrations are remembered in process memory. */
  readonly cacheSize?: number;
  /** When a claim was made or renewed (default `Date.now`); the store's own clock decides when it expires. */
  readonly now?: () => number;
}

/**
 * An append-only list per bucket (a run's steps, a conversation's runs, an hour's runs) that many
 * processes may append to at once, on every backend keyv offers and without scanning the store.
 *
 * keyv has no atomic append, so every process writes only its own partition of a bucket: item
 * `n` of writer `w` is its own key, and `w`'s count is only ever written by `w` (appends inside a
 * process are serialized per bucket). Readers find the partitions through the bucket's writer
 * slots. A writer joins a bucket by claiming the first free slot with the atomic store's
 * set-if-absent, so two processes joining at the same moment never take the same slot; readers
 * read the claims themselves. A first append sends its claim with its item and count (one commit
 * on SQLite): the item's key names the writer, not the slot, so nothing waits for the claim.
 *
 * A claim lives as long as the items (`ttlMs`): a writer that goes on appending renews its claim
 * once a hundredth of that has passed, so a bucket written to for longer than its retention (a
 * conversation of many weeks) stays readable, and a writer that stopped lets its claim lapse at
 * most a hundredth of the retention before its last items. Readers read slots in batches up to the
 * first batch with a free slot; a writer holding a slot past the first batch also keeps the
 * bucket's reach (the slots readers must read, whatever lapsed before them), so a run of lapsed
 * claims never hides the live writers after it.
 */
export class PartitionedLog<Item> {
  readonly writerId: string;
  readonly #atomic: AtomicStore;
  readonly #name: string;
  readonly #counts: Keyv<number>;
  readonly #items: Keyv<Item>;
  /** Per bucket held past the first batch: how many slots readers must read. */
  readonly #reach: Keyv<number>;
  readonly #ttlMs: number;
  readonly #now: () => number;
  /**
   * Per bucket this writer appended to: its own count (so an append costs two writes and no read),
   * the slot it holds and when it claimed or last renewed it.
   */
  readonly #written: LRUCache<string, Written>;
  /**
   * True while this writer's every count is in `#written`: its id was drawn by this process (no
   * other process or earlier run wrote under it) and no count has been dropped from the cache yet.
   * Then a bucket it has no count for is one it never wrote to, and its first append reads nothing.
   */
  #knowsEveryCount: boolean;
  /** Per bucket being written to: its appends, in order, in batches. */
  readonly #writes = new Map<string, BatchedWrites<Item>>();

  constructor(store: Store, options: PartitionedLogOptions) {
    this.writerId = options.writerId ?? randomUUID().slice(0, 12);
    this.#atomic = store.atomic;
    this.#name = options.name;
    this.#counts = store.namespace<number>(`${options.name}-counts`);
    this.#items = store.namespace<Item>(`${options.name}-items`);
    this.#reach = store.namespace<number>(`${options.name}-reach`);
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
    this.#knowsEveryCount = options.writerId === undefined;
    this.#written = new LRUCache<string, Written>({
      max: options.cacheSize ?? 10_000,
      dispose: (_written, _bucket, reason) => {
        if (reason === "evict") this.#knowsEveryCount = false;
      },
    });
  }

  /** True while every count this writer ever wrote is known here (see `#knowsEveryCount`). */
  get knowsEveryCount(): boolean {
    return this.#knowsEveryCount;
  }

  /**
   * Appends `item` to `bucket`; appends to one bucket from one process keep their order. Appends made
   * while the bucket's previous write is on its way go out together in the next one: their items and
   * one count (one commit on SQLite), not a write of the count per item — an hour's run index takes
   * every run this process starts.
   */
  append(bucket: string, item: Item): Promise<void> {
    let writes = this.#writes.get(bucket);
    if (!writes) {
      writes = new BatchedWrites<Item>(
        (items) => this.#write(bucket, items),
        () => this.#writes.delete(bucket),
      );
      this.#writes.set(bucket, writes);
    }
    return writes.add(item);
  }

  async #write(bucket: string, items: readonly Item[]): Promise<void> {
    const known = this.#written.get(bucket);
    const count =
      known?.count ??
      (this.#knowsEveryCount ? 0 : ((await this.#counts.get(partitionKey(bucket, this.writerId))) ?? 0));
    // The claim of a slot, the items and the count go out together (one commit on SQLite): a
    // reader that sees the count before an item, or the partition before its slot, skips what is
    // not there yet. A bucket this process has not written to yet is claimed even when a count
    // was found (the same writer id in an earlier process): its claim may never have landed.
    const claiming = known === undefined || this.#now() - known.claimedAt >= this.#ttlMs / RENEWALS_PER_TTL;
    const [claim] = await Promise.all([
      claiming ? this.#claim(bucket, known?.slot) : known,
      ...items.map((item, n) =>
        this.#items.set(itemKey(bucket, this.writerId, count + n), item, this.#ttlMs),
      ),
      this.#counts.set(partitionKey(bucket, this.writerId), count + items.length, this.#ttlMs),
    ]);
    this.#written.set(bucket, { count: count + items.length, slot: claim.slot, claimedAt: claim.claimedAt });
  }

  /** Every item of `bucket`, grouped by partition (each partition in append order). */
  async read(bucket: string): Promise<Item[][]> {
    const writers = await this.#writersOf(bucket);
    if (writers.length === 0) return [];
    const counts = await this.#counts.getMany(writers.map((writer) => partitionKey(bucket, writer)));
    const partitions: Item[][] = [];
    for (const [index, writer] of writers.entries()) {
      const count = counts[index] ?? 0;
      if (count === 0) continue;
      const keys = Array.from({ length: count }, (_, n) => itemKey(bucket, writer, n));
      const items = await this.#items.getMany(keys);
      partitions.push(items.filter((item): item is Awaited<Item> => item !== undefined) as Item[]);
    }
    return partitions;
  }

  /** Resolves when every append started so far has been written. */
  async flushed(): Promise<void> {
    await Promise.all([...this.#writes.values()].map((writes) => writes.flushed()));
  }

  /** Renews the slot this writer holds in `bucket`, or claims one (the one it held, if it lapsed meanwhile, may be gone). */
  async #claim(bucket: string, held: number | undefined): Promise<Pick<Written, "slot" | "claimedAt">> {
    const claimedAt = this.#now();
    const renewed =
      held !== undefined &&
      (await this.#atomic.renewMark(this.#slotKey(bucket, held), this.writerId, this.#ttlMs));
    const slot = renewed ? held : await this.#join(bucket);
    if (slot >= SLOT_BATCH) await this.#reachAtLeast(bucket, slot + 1);
    return { slot, claimedAt };
  }

  /** Claims the bucket's first free writer slot; resolves with the slot once it is this writer's. */
  async #join(bucket: string): Promise<number> {
    for (let slot = 0; ; slot += 1) {
      const key = this.#slotKey(bucket, slot);
      if (await this.#atomic.setIfAbsent(key, this.writerId, this.#ttlMs)) return slot;
      // Taken: by this writer already (its count expired or was evicted from the cache), or another.
      const [holder] = await this.#atomic.marks([key]);
      if (holder === this.writerId && (await this.#atomic.renewMark(key, this.writerId, this.#ttlMs)))
        return slot;
    }
  }

  /**
   * Raises the bucket's reach to `slots` and gives it a new life. Two writers raising it at once may
   * leave the lower value; each writes it again when it renews its claim.
   */
  async #reachAtLeast(bucket: string, slots: number): Promise<void> {
    const reach = (await this.#reach.get(bucket)) ?? 0;
    await this.#reach.set(bucket, Math.max(reach, slots), this.#ttlMs);
  }

  async #writersOf(bucket: string): Promise<string[]> {
    const writers: string[] = [];
    const reach = (await this.#reach.get(bucket)) ?? 0;
    for (let first = 0; ; first += SLOT_BATCH) {
      const keys = Array.from({ length: SLOT_BATCH }, (_, n) => this.#slotKey(bucket, first + n));
      const found = await this.#atomic.marks(keys);
      for (const writer of found) if (writer !== undefined) writers.push(writer);
      // Slots fill in order; past the reach, a batch with a free slot is the last (a slot claimed
      // this instant shows up next read).
      if (first + SLOT_BATCH >= reach && found.some((writer) => writer === undefined))
        return [...new Set(writers)];
    }
  }

  #slotKey(bucket: string, slot: number): string {
    return `${this.#name}:${bucket}#${slot}`;
  }
}

interface Written {
  readonly count: number;
  readonly slot: number;
  readonly claimedAt: number;
}

const SLOT_BATCH = 8;
/** A writer renews its claim each time this fraction of the retention has passed while it writes. */
const RENEWALS_PER_TTL = 100;
const partitionKey = (bucket: string, writer: string) => `${bucket}|${writer}`;
const itemKey = (bucket: string, writer: string, n: number) => `${bucket}|${writer}|${n}`;
