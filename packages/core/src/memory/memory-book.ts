import type Keyv from "keyv";
import type { Store } from "../store/types.ts";

/** Who wrote the message an entry records. */
export type SpeakerRole = "user" | "bot";

/** One remembered message: what the memory model made of it, and the text itself. */
export interface MemoryEntry {
  /** Position in the conversation's entries, from 0. */
  readonly seq: number;
  readonly role: SpeakerRole;
  readonly summary: string;
  readonly raw: string;
  readonly tags: readonly string[];
  readonly at: number;
}

/** The synthesized document describing the conversation so far. */
export interface ContextDocument {
  readonly content: string;
  readonly updatedAt: number;
}

/**
 * A conversation's long-term memory: entries and its context document, in the store (so they
 * survive restarts and are shared by every instance). Each entry is its own key, so storage grows
 * linearly with the conversation and reading the newest N costs N reads, never the whole list.
 * Writes for one conversation are ordered by the memory invoker's per-conversation queue.
 */
export class MemoryBook {
  readonly #entries: Keyv<MemoryEntry>;
  readonly #counts: Keyv<number>;
  readonly #contexts: Keyv<ContextDocument>;

  constructor(store: Store) {
    this.#entries = store.namespace<MemoryEntry>("memory-entries");
    this.#counts = store.namespace<number>("memory-entry-counts");
    this.#contexts = store.namespace<ContextDocument>("memory-contexts");
  }

  async addEntry(key: string, entry: Omit<MemoryEntry, "seq">): Promise<MemoryEntry> {
    const [stored] = await this.addEntries(key, [entry]);
    if (!stored) throw new Error("no entry was stored");
    return stored;
  }

  /**
   * Appends entries in order (a turn's question and answer): one count read, one write of them
   * all, one count write, however many there are. The count goes last: entries it does not cover
   * yet are never read, and the next write takes the same positions.
   */
  async addEntries(key: string, entries: readonly Omit<MemoryEntry, "seq">[]): Promise<MemoryEntry[]> {
    if (entries.length === 0) return [];
    const first = await this.entryCount(key);
    const stored = entries.map((entry, offset) => ({ ...entry, seq: first + offset }));
    await this.#entries.setMany(stored.map((entry) => ({ key: entryKey(key, entry.seq), value: entry })));
    await this.#counts.set(key, first + stored.length);
    return stored;
  }

  async entryCount(key: string): Promise<number> {
    return (await this.#counts.get(key)) ?? 0;
  }

  /** The newest `limit` entries, oldest first. */
  async recentEntries(key: string, limit: number): Promise<MemoryEntry[]> {
    const count = await this.entryCount(key);
    const first = Math.max(0, count - limit);
    if (count === first) return [];
    const keys = Array.from({ length: count - first }, (_, index) => entryKey(key, first + index));
    const found = await this.#entries.getMany(keys);
    return found.filter((entry): entry is MemoryEntry => entry !== undefined);
  }

  async context(key: string): Promise<ContextDocument | undefined> {
    return this.#contexts.get(key);
  }

  async putContext(key: string, content: string, at: number): Promise<void> {
    await this.#contexts.set(key, { content, updatedAt: at });
  }

  /** Deletes every entry and the context document; returns how many entries went. */
  async forget(key: string): Promise<number> {
    const count = await this.entryCount(key);
    if (count > 0)
      await this.#entries.deleteMany(Array.from({ length: count }, (_, seq) => entryKey(key, seq)));
    await this.#counts.delete(key);
    await this.#contexts.delete(key);
    return count;
  }
}

function entryKey(key: string, seq: number): string {
  return `${key}#${seq}`;
}
