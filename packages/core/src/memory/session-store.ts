import type Keyv from "keyv";
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
}

/** A line as the memory prompts show it: the session's messages, after the remembered context. */
export interface PromptLine {
  readonly role: TranscriptLine["role"] | "system";
  readonly text: string;
}

/**
 * The live session of each conversation, kept beside the memory graph's checkpoint rather than in
 * it: one small record, and the session's messages as append-only lines, one key each, numbered
 * from 1 by the graph's message counter. A run writes one line and reads at most a prompt's window
 * of them, so its cost does not depend on how long the session is; the whole transcript is read
 * once, when the session is archived. Storage stays linear: one line per message, deleted when the
 * session ends (the archive keeps the transcript).
 */
export class SessionStore {
  readonly #records: Keyv<SessionRecord>;
  readonly #lines: Keyv<TranscriptLine>;

  constructor(store: Store) {
    this.#records = store.namespace<SessionRecord>("memory-session-records");
    this.#lines = store.namespace<TranscriptLine>("memory-session-lines");
  }

  /** The live session's record, or undefined when no session is live. */
  record(key: string): Promise<SessionRecord | undefined> {
    return this.#records.get(key);
  }

  async start(key: string, startedAt: number, context: string): Promise<SessionRecord> {
    const record: SessionRecord = { startedAt, context, digest: null };
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
   * Writes the session's `position`th message (from 1). Writing the same position again replaces
   * it: a run that failed after writing its line leaves nothing behind that a later read could see,
   * since reads never go past the counter and the next message takes the same position.
   */
  async writeLine(key: string, position: number, line: TranscriptLine): Promise<void> {
    await this.writeLines(key, position, [line]);
  }

  /** `writeLine` for consecutive positions from `first`, in one store write. */
  async writeLines(key: string, first: number, lines: readonly TranscriptLine[]): Promise<void> {
    if (lines.length === 0) return;
    await this.#lines.setMany(
      lines.map((line, offset) => ({ key: lineKey(key, first + offset), value: line })),
    );
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
   * The last `limit` lines of the remembered context followed by messages 1 … `upTo`: the session
   * as a memory prompt shows it, read in one record and at most `limit` lines.
   */
  async window(key: string, upTo: number, limit: number): Promise<PromptLine[]> {
    const [record, lines] = await Promise.all([this.record(key), this.lines(key, upTo - limit + 1, upTo)]);
    const context: PromptLine[] = record?.context ? [{ role: "system", text: record.context }] : [];
    return [...context, ...lines].slice(-limit);
  }

  /**
   * Ends the live session: its record and its lines go — the `messageCount` counted ones and the
   * one after them, which a run that failed after writing its line may have left.
   */
  async end(key: string, messageCount: number): Promise<void> {
    const positions = Array.from({ length: messageCount + 1 }, (_, index) => lineKey(key, index + 1));
    await this.#lines.deleteMany(positions);
    await this.#records.delete(key);
  }
}

function lineKey(key: string, position: number): string {
  return `${key}#${position}`;
}
