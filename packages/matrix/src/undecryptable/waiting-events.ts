import type { KeyValue } from "../connect/key-value.ts";

/** An encrypted event whose key has not arrived, as kept in the store (its event under its own key). */
export interface WaitingEvent {
  readonly eventId: string;
  readonly roomId: string;
  readonly sender: string;
  /** The Megolm session whose key is missing (`content.session_id`). */
  readonly sessionId: string;
  /** The thread it was written in, from its unencrypted `m.relates_to` (where the notice goes). */
  readonly threadRoot?: string;
  /** When the bot first failed to read it (epoch ms). */
  readonly receivedAt: number;
  /** When the sender is to be told (epoch ms). */
  readonly noticeAt: number;
  /** The sender's client said it withholds the key, and why. */
  readonly withheld?: string;
  /** Failed attempts to post the notice. */
  readonly noticeFailures: number;
}

/** The notice goes once per sender, room and key: every event of one missing key is one problem. */
export function noticeGroupOf(event: Pick<WaitingEvent, "roomId" | "sender" | "sessionId">): string {
  return `${event.roomId}|${event.sender}|${event.sessionId}`;
}

export interface WaitingEventsOptions {
  readonly kv: KeyValue;
  /** Keys are scoped by it: the bot's user id. */
  readonly scope: string;
  /** Most events kept; past it the oldest is dropped (and returned by `add`, to be logged). */
  readonly maxEvents: number;
  /** Most notice groups remembered as told (oldest forgotten first). */
  readonly maxNoticed?: number;
}

/**
 * Undecryptable events, kept in the store so that a restart still reads them when their keys arrive.
 * An index of small records under one key, and each encrypted event under a key of its own (an event
 * can be 64 KB; the index is rewritten on every change and must stay small). Bounded: a flood of
 * unreadable events drops the oldest, never grows the store without end. One process owns it (the
 * one that syncs), so the index is read once and then kept in memory, written through.
 */
export class WaitingEvents {
  readonly #options: WaitingEventsOptions;
  #index: WaitingEvent[] = [];
  #noticed: string[] = [];

  constructor(options: WaitingEventsOptions) {
    this.#options = options;
  }

  #key(part: string): string {
    return `undecryptable:${this.#options.scope}:${part}`;
  }

  async load(): Promise<void> {
    const { kv } = this.#options;
    this.#index = parseList<WaitingEvent>(await kv.get(this.#key("index")));
    this.#noticed = parseList<string>(await kv.get(this.#key("noticed")));
  }

  list(): readonly WaitingEvent[] {
    return this.#index;
  }

  get size(): number {
    return this.#index.length;
  }

  has(eventId: string): boolean {
    return this.#index.some((entry) => entry.eventId === eventId);
  }

  /** Keeps an event (its raw JSON first, then the index that names it); returns any dropped to stay bounded. */
  async add(entry: WaitingEvent, raw: unknown): Promise<WaitingEvent[]> {
    const { kv, maxEvents } = this.#options;
    await kv.set(this.#key(`event:${entry.eventId}`), JSON.stringify(raw));
    const next = [...this.#index.filter((kept) => kept.eventId !== entry.eventId), entry];
    const dropped = next.length > maxEvents ? next.splice(0, next.length - maxEvents) : [];
    await this.#writeIndex(next);
    for (const gone of dropped) await kv.delete(this.#key(`event:${gone.eventId}`));
    return dropped;
  }

  /** The encrypted event as it arrived; undefined when the store lost it. */
  async raw(eventId: string): Promise<unknown> {
    const stored = await this.#options.kv.get(this.#key(`event:${eventId}`));
    return stored === undefined ? undefined : JSON.parse(stored);
  }

  async remove(eventIds: readonly string[]): Promise<void> {
    if (eventIds.length === 0) return;
    const gone = new Set(eventIds);
    await this.#writeIndex(this.#index.filter((entry) => !gone.has(entry.eventId)));
    for (const eventId of gone) await this.#options.kv.delete(this.#key(`event:${eventId}`));
  }

  async update(entry: WaitingEvent): Promise<void> {
    await this.#writeIndex(this.#index.map((kept) => (kept.eventId === entry.eventId ? entry : kept)));
  }

  wasNoticed(group: string): boolean {
    return this.#noticed.includes(group);
  }

  async markNoticed(group: string): Promise<void> {
    const next = [...this.#noticed.filter((kept) => kept !== group), group];
    const max = this.#options.maxNoticed ?? 1_000;
    if (next.length > max) next.splice(0, next.length - max);
    await this.#options.kv.set(this.#key("noticed"), JSON.stringify(next));
    this.#noticed = next;
  }

  async #writeIndex(next: WaitingEvent[]): Promise<void> {
    await this.#options.kv.set(this.#key("index"), JSON.stringify(next));
    this.#index = next;
  }
}

function parseList<T>(stored: string | undefined): T[] {
  if (stored === undefined) return [];
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed) ? (parsed as T[]) : [];
}
