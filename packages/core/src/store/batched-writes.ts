/**
 * Writes that must land in order, where the ones made while an earlier write is on its way go out
 * together in the next: a busy process writes a shared key (a count, a total) once per batch
 * instead of once per item. Each `add` resolves once the batch holding its item was written, and
 * rejects with that batch's error when it failed.
 */
export class BatchedWrites<Item> {
  readonly #write: (items: readonly Item[]) => Promise<void>;
  readonly #onIdle: (() => void) | undefined;
  #queued: Array<{
    readonly item: Item;
    readonly resolve: () => void;
    readonly reject: (error: unknown) => void;
  }> = [];
  #writing: Promise<void> | undefined;

  /** `onIdle`: told each time the last queued item has been written and nothing waits. */
  constructor(write: (items: readonly Item[]) => Promise<void>, onIdle?: () => void) {
    this.#write = write;
    this.#onIdle = onIdle;
  }

  add(item: Item): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queued.push({ item, resolve, reject });
      this.#writing ??= this.#drain();
    });
  }

  /** Resolves when every item added so far has been written (or its batch failed). */
  async flushed(): Promise<void> {
    await this.#writing;
  }

  async #drain(): Promise<void> {
    while (this.#queued.length > 0) {
      const batch = this.#queued;
      this.#queued = [];
      try {
        await this.#write(batch.map((queued) => queued.item));
        for (const queued of batch) queued.resolve();
      } catch (error) {
        for (const queued of batch) queued.reject(error);
      }
    }
    this.#writing = undefined;
    this.#onIdle?.();
  }
}
