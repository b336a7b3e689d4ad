import type Keyv from "keyv";
import { writeInOrder } from "../store/in-order.ts";
import type { Store } from "../store/types.ts";
import type { TranscriptLine } from "./archive/archive-store.ts";

/**
 * What the team's agents are given for the whole live session. Small and bounded (the context is
 * bounded by configuration, the digest by the summary length): `contextFor` reads it on every
 * model call, so it must never grow with the session.
 */
export interface SessionRecord {
  readonly startedAt: number;
  /** The context loaded when the session started ("" when nothing was remembered). */
  readonly context: string;
  /** What compaction removed from the live history, condensed; null until the first compaction. */
  readonly digest: string | null;
  /** Messages in the session so far: numbers its lines and decides when to flush. */
  readonly messageCount: number;
  /**
   * Messages recorded as entries and folded into the context document (by the model, or
   * extractively when it failed): the lines after it are what the next flush records.
   */
  readonly recordedUpTo: number;
}

/**
 * The live session of each conversation, kept beside the memory graph's checkpoint rather than in
 * it: one small record (with the message counter), and the session's messages as append-only
 * lines, one key each, numbered from 1. A turn writes its lines and the record; a flush reads the
 * lines not recorded yet (at most `flushEvery` and a turn), so its cost does not depend on how long
 * the session is; the whole transcript is read once, when the session is archived. Storage stays linear: one line per message, deleted when the
 * session ends (the archive keeps the transcript).
 */
export class SessionStore {
  readonly #records: Keyv<SessionRecord>;
  readonly #lines: Keyv<TranscriptLine>;
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
    this.#records = store.namespace<SessionRecord>("memory-session-records");
    this.#lines = store.namespace<TranscriptLine>("memory-session-lines");
  }

  /** The live session's record, or undefined when no session is live. */
  record(key: string): Promise<SessionRecord | undefined> {
    return this.#records.get(key);
  }

  /**
   * Starts a live session. `lines`, the turn that opens it, are written with its record as `append`
   * writes a turn (in one commit where the store allows it): a session's first message costs one
   * commit, not two.
   */
  async start(
    key: string,
    startedAt: number,
    context: string,
    lines: readonly TranscriptLine[] = [],
  ): Promise<SessionRecord> {
    const record: SessionRecord = { startedAt, context, digest: null, messageCount: 0, recordedUpTo: 0 };
    if (lines.length > 0) return this.#appendTo(key, record, lines);
    await this.#records.set(key, record);
    return record;
  }

  /** Replaces the live session's record (a session from before the counter moved here gets it). */
  async adopt(key: string, record: SessionRecord): Promise<SessionRecord> {
    await this.#records.set(key, record);
    return record;
  }

  /** Keeps compaction's digest with the live session; false when no session is live to keep it. */
  async setDigest(key: string, digest: string): Promise<boolean> {
    const record = await this.#records.get(key);
    if (!record) return false;
    await this.#records.set(key, { ...record, digest });
    return true;
  }

  /**
   * Appends a turn's lines after the counter, then moves the counter past them. Lines first (or
   * both in one commit, `writeInOrder`): a crash in between leaves lines past the counter, which
   * reads never see and the next turn overwrites. Returns the record as it is now; undefined when
   * no session is live.
   */
  async append(
    key: string,
    lines: readonly TranscriptLine[],
    /** The record as the caller just read or wrote it: saves reading it again. */
    known?: SessionRecord,
  ): Promise<SessionRecord | undefined> {
    const record = known ?? (await this.#records.get(key));
    if (!record) return undefined;
    if (lines.length === 0) return record;
    return this.#appendTo(key, record, lines);
  }

  async #appendTo(
    key: string,
    record: SessionRecord,
    lines: readonly TranscriptLine[],
  ): Promise<SessionRecord> {
    const advanced = { ...record, messageCount: record.messageCount + lines.length };
    await writeInOrder(
      this.#store,
      () =>
        this.#lines.setMany(
          lines.map((line, offset) => ({ key: lineKey(key, record.messageCount + offset + 1), value: line })),
        ),
      () => this.#records.set(key, advanced),
    );
    return advanced;
  }

  /** Marks messages up to `upTo` as recorded (entries and context document). */
  async markRecorded(key: string, upTo: number): Promise<void> {
    const record = await this.#records.get(key);
    if (record)
      await this.#records.set(key, { ...record, recordedUpTo: Math.max(record.recordedUpTo, upTo) });
  }

  /** Lines `from` … `to` (inclusive, from 1), oldest first. */
  async lines(key: string, from: number, to: number): Promise<TranscriptLine[]> {
    const first = Math.max(1, from);
    if (to < first) return [];
    const keys = Array.from({ length: to - first + 1 }, (_, index) => lineKey(key, first + index));
    const found = await this.#lines.getMany(keys);
    return found.filter((line): line is TranscriptLine => line !== undefined);
  }

  /**
   * Ends the live session: its record and its lines go — the `messageCount` counted ones and the
   * one after them, which a run that failed after writing its line may have left.
   */
  async end(key: string, messageCount: number): Promise<void> {
    const positions = Array.from({ length: messageCount + 1 }, (_, index) => lineKey(key, index + 1));
    await writeInOrder(
      this.#store,
      () => this.#lines.deleteMany(positions),
      () => this.#records.delete(key),
    );
  }
}

function lineKey(key: string, position: number): string {
  return `${key}#${position}`;
}
