/**
 * Notices a Redis that came back without its data: restarted with no persistence configured, or
 * failed over to an empty replica. Every process on the same data shares one epoch key, written
 * when the first of them starts (`SET NX`). After each reconnect the key is read again: gone, or
 * another value, means the dedupe marks, queues, outbox and checkpoints written before are gone.
 *
 * What that must not cause is a second answer: a platform that delivers again what was already
 * answered (a Matrix sync that lost its position starts from the room's recent history; a Slack
 * retry) finds no dedupe mark any more. So the loss moves a line: messages sent before the
 * connection dropped may have been answered from the lost data and are refused from then on
 * (`dataLostBefore`); messages sent after it never reached the lost data and are taken as usual.
 */
import { randomUUID } from "node:crypto";
import type { StoreHealth } from "../types.ts";
import type { RedisConnection } from "./redis-connection.ts";

export interface DataLoss {
  /** Messages sent before this (ms) are refused from now on. */
  readonly lostBefore: number;
}

export class StoreEpoch implements StoreHealth {
  readonly #client: RedisConnection;
  readonly #key: string;
  readonly #onDataLost: (loss: DataLoss) => void;
  #epoch = "";
  #available = true;
  /** When the connection last went down (the last moment the old data could have taken a message). */
  #droppedAt = 0;
  #dataLostBefore: number | undefined;
  #dataLosses = 0;

  private constructor(client: RedisConnection, key: string, onDataLost: (loss: DataLoss) => void) {
    this.#client = client;
    this.#key = key;
    this.#onDataLost = onDataLost;
  }

  /** Writes the epoch if no process has yet, adopts it, and watches reconnects. */
  static async begin(
    client: RedisConnection,
    key: string,
    onDataLost: (loss: DataLoss) => void,
  ): Promise<StoreEpoch> {
    const epoch = new StoreEpoch(client, key, onDataLost);
    epoch.#epoch = await epoch.#claim();
    const down = () => {
      if (!epoch.#available) return;
      epoch.#available = false;
      epoch.#droppedAt = Date.now();
    };
    client.on("end", down);
    client.on("error", down);
    client.on("ready", () => {
      epoch.#available = true;
      void epoch.verify();
    });
    return epoch;
  }

  get available(): boolean {
    return this.#available;
  }

  get dataLostBefore(): number | undefined {
    return this.#dataLostBefore;
  }

  get dataLosses(): number {
    return this.#dataLosses;
  }

  /** Reads the epoch again (after a reconnect); a missing or different one is a data loss. */
  async verify(): Promise<void> {
    let current: string | null;
    try {
      current = await this.#client.get(this.#key);
    } catch {
      // Down again: the next reconnect looks.
      return;
    }
    if (current === this.#epoch) return;
    const lostBefore = this.#droppedAt || Date.now();
    this.#dataLostBefore = Math.max(this.#dataLostBefore ?? 0, lostBefore);
    this.#dataLosses += 1;
    this.#epoch = current ?? (await this.#claim());
    this.#onDataLost({ lostBefore: this.#dataLostBefore });
  }

  async #claim(): Promise<string> {
    await this.#client.set(this.#key, `${new Date().toISOString()} ${randomUUID()}`, { condition: "NX" });
    return (await this.#client.get(this.#key)) ?? "";
  }
}
