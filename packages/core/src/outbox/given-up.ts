import type Keyv from "keyv";
import type { Store } from "../store/types.ts";

/** How long /status reports an answer that could not be delivered, and how many per conversation. */
const KEPT_FOR_MS = 7 * 24 * 60 * 60 * 1000;
const KEPT = 5;

export interface GivenUpDelivery {
  readonly at: number;
  readonly reason: string;
}

/** Answers given up after their retries, per conversation: never dropped silently, shown by /status. */
export class GivenUpDeliveries {
  readonly #entries: Keyv<GivenUpDelivery[]>;

  constructor(store: Store) {
    this.#entries = store.namespace<GivenUpDelivery[]>("undelivered");
  }

  async list(conversationKey: string): Promise<GivenUpDelivery[]> {
    return (await this.#entries.get(conversationKey)) ?? [];
  }

  async remember(conversationKey: string, reason: string, at = Date.now()): Promise<void> {
    const kept = [...(await this.list(conversationKey)), { at, reason }].slice(-KEPT);
    await this.#entries.set(conversationKey, kept, KEPT_FOR_MS);
  }

  /** /status lines; none when every answer here was delivered. */
  async statusLines(conversationKey: string): Promise<string[]> {
    const entries = await this.list(conversationKey);
    if (entries.length === 0) return [];
    return [
      "Answers that could not be delivered (the platform kept refusing them):",
      ...entries.map((entry) => `- ${new Date(entry.at).toISOString()}: ${entry.reason}`),
    ];
  }
}
