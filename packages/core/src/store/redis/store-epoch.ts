/**
 * Notices a Redis that came back without its data: restarted with no persistence configured, or
 * failed over to an empty replica. Every process on the same data shares one epoch key, written
 * when the first of them starts (`SET NX`). After each reconnect, and every `checkEveryMs`, the key
 * is read again: gone, or another epoch, means the dedupe marks, queues, outbox and checkpoints
 * written before are gone.
 *
 * What that must not cause is a second answer: a platform that delivers again what was already
 * answered (a Matrix sync started afresh by a new leader, a Slack retry reaching another ingress)
 * finds no dedupe mark any more. So the loss draws a line: messages sent before the connection
 * dropped may have been answered from the lost data and are refused from then on
 * (`dataLostBefore`); messages sent after it never reached the lost data and are taken as usual.
 * The line is written into the new epoch, so processes started after the loss keep it too. A loss
 * no running process saw (every process restarted with Redis) cannot be told from a first start.
 */
import { randomUUID } from "node:crypto";
import type { StoreHealth } from "../types.ts";
import type { RedisConnection } from "./redis-connection.ts";

export interface DataLoss {
  /** Messages sent before this (ms) are refused from now on. */
  readonly lostBefore: number;
}

/** What the epoch key holds. */
interface EpochRecord {
  readonly id: string;
  /** Set once a process noticed the data before this epoch was lost. */
  readonly lostBefore?: number;
}

const CHECK_EVERY_MS = 5_000;

export class StoreEpoch implements StoreHealth {
  readonly #client: RedisConnection;
  readonly #key: string;
  readonly #onDataLost: (loss: DataLoss) => void;
  #epoch: EpochRecord = { id: "" };
  #available = true;
  /** When the connection last went down (the last moment the old data could have taken a message). */
  #droppedAt = 0;
  #dataLostBefore: number | undefined;
  #dataLosses = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #checking: Promise<void> | undefined;

  private constructor(client: RedisConnection, key: string, onDataLost: (loss: DataLoss) => void) {
    this.#client = client;
    this.#key = key;
    this.#onDataLost = onDataLost;
  }

  /** Writes the epoch if no process has yet, adopts it (and any line it carries), and watches it. */
  static async begin(
    client: RedisConnection,
    key: string,
    onDataLost: (loss: DataLoss) => void,
    checkEveryMs = CHECK_EVERY_MS,
  ): Promise<StoreEpoch> {
    const epoch = new StoreEpoch(client, key, onDataLost);
    epoch.#adopt(await epoch.#claim({ id: newEpochId() }));
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
    epoch.#timer = setInterval(() => void epoch.verify(), checkEveryMs);
    epoch.#timer.unref?.();
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

  /** Reads the epoch again; a missing or different one is a data loss. One check at a time. */
  verify(): Promise<void> {
    this.#checking ??= this.#verify().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #verify(): Promise<void> {
    let current: EpochRecord | undefined;
    try {
      current = parseRecord(await this.#client.get(this.#key));
    } catch {
      // Unreachable: the next reconnect or round looks again.
      return;
    }
    if (current?.id === this.#epoch.id) {
      this.#adopt(current);
      return;
    }
    // The data this process worked on is gone. Its line: when the connection dropped (a loss seen
    // without a drop — a failover behind a proxy — draws it now).
    const lostBefore = Math.max(this.#droppedAt || Date.now(), current?.lostBefore ?? 0);
    this.#dataLosses += 1;
    try {
      const claimed = await this.#claim({ id: current?.id ?? newEpochId(), lostBefore });
      // Another process may have drawn a later line into the new epoch already: the later one holds.
      const merged = { ...claimed, lostBefore: Math.max(claimed.lostBefore ?? 0, lostBefore) };
      if (merged.lostBefore !== claimed.lostBefore) await this.#client.set(this.#key, JSON.stringify(merged));
      this.#adopt(merged);
    } catch {
      this.#epoch = { id: "" };
      this.#dataLostBefore = Math.max(this.#dataLostBefore ?? 0, lostBefore);
    }
    this.#onDataLost({ lostBefore: this.#dataLostBefore ?? lostBefore });
  }

  #adopt(record: EpochRecord): void {
    this.#epoch = record;
    if (record.lostBefore !== undefined)
      this.#dataLostBefore = Math.max(this.#dataLostBefore ?? 0, record.lostBefore);
  }

  /** Writes `record` unless an epoch is there; returns the one that is. */
  async #claim(record: EpochRecord): Promise<EpochRecord> {
    await this.#client.set(this.#key, JSON.stringify(record), { condition: "NX" });
    return parseRecord(await this.#client.get(this.#key)) ?? record;
  }
}

function newEpochId(): string {
  return `${new Date().toISOString()} ${randomUUID()}`;
}

function parseRecord(raw: string | null): EpochRecord | undefined {
  if (raw === null) return undefined;
  try {
    const parsed = JSON.parse(raw) as { id?: unknown; lostBefore?: unknown };
    if (typeof parsed.id !== "string") return { id: raw };
    return typeof parsed.lostBefore === "number"
      ? { id: parsed.id, lostBefore: parsed.lostBefore }
      : { id: parsed.id };
  } catch {
    return { id: raw };
  }
}
