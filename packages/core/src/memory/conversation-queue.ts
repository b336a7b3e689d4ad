/**
 * One promise chain per conversation: memory work for a conversation runs in the order it was
 * queued, never two at once, while different conversations proceed side by side. A failed job
 * does not stop the jobs after it (its caller gets the error).
 */
export class ConversationQueue {
  readonly #tails = new Map<string, Promise<void>>();

  run<Result>(key: string, job: () => Promise<Result>): Promise<Result> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(job);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  get pending(): number {
    return this.#tails.size;
  }

  /** Resolves once every queued job (including ones queued meanwhile) has finished. */
  async idle(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all([...this.#tails.values()]);
  }
}
