import type { Turn, TurnAnswer, TurnObserver } from "../engine/responder.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { LiveSessions } from "./active-sessions.ts";
import type {
  ArchivedSession,
  ArchiveReason,
  ArchiveStore,
  TranscriptLine,
} from "./archive/archive-store.ts";
import type { HistoryCompactor } from "./compaction.ts";
import { ControlState, controlForTurn } from "./control-state.ts";
import type { ConversationHistory } from "./conversation-history.ts";
import { ConversationQueue } from "./conversation-queue.ts";
import type { MemoryAgent } from "./memory-agent.ts";
import type { MemoryBook } from "./memory-book.ts";
import type { MemoryWorkRecorder } from "./memory-work.ts";
import type { SessionArchiver } from "./session-archiver.ts";

export interface MemoryInvokerOptions {
  readonly agent: MemoryAgent;
  readonly book: MemoryBook;
  readonly archive: ArchiveStore;
  readonly sessions: LiveSessions;
  readonly archiver: SessionArchiver;
  readonly compactor: HistoryCompactor;
  readonly flushEvery: number;
  readonly idleMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Records each turn's memory work as a run of its own (the run-steps log). */
  readonly recorder?: MemoryWorkRecorder;
}

export class MemoryNotAttachedError extends Error {
  constructor() {
    super("memory is not attached to the team: call memory.attach(team) after creating the Team");
    this.name = "MemoryNotAttachedError";
  }
}

/**
 * Drives the memory agent around the engine's turns, so the engine only reports what happened.
 * It builds the messages and picks each run's control state (the counter lives in the agent's
 * checkpoint). Work starts only after the answer was delivered and is queued per conversation:
 * ordered, never delaying a reply, and awaited by `close()` so shutdown loses none of it.
 */
export class MemoryInvoker implements TurnObserver {
  readonly #options: MemoryInvokerOptions;
  readonly #queue = new ConversationQueue();
  /** When this process last saw a conversation's turn begin (agents asked for context). */
  readonly #seen = new Map<string, number>();
  #history: ConversationHistory | undefined;

  constructor(options: MemoryInvokerOptions) {
    this.#options = options;
  }

  attach(history: ConversationHistory): void {
    this.#history = history;
  }

  afterDelivery(turn: Turn, answer: TurnAnswer): void {
    const { key } = turn;
    this.noteActivity(key);
    void this.#queue
      .run(key, () => this.#recordTurn(key, turn.message.author.id, turn.text, answer))
      .catch((error: unknown) =>
        this.#options.logger.error("memory could not record a turn", { key, error }),
      );
  }

  /** A turn is under way (the team asked for context): keeps the sweeper away meanwhile. */
  noteActivity(key: string): void {
    this.#seen.set(key, this.#options.clock.now());
  }

  /** Archives the conversation's live session now, in its queue. */
  endSession(key: string, reason: ArchiveReason = "requested"): Promise<ArchivedSession | undefined> {
    return this.#queue.run(key, () => this.#options.archiver.archive(key, reason, this.#requireHistory()));
  }

  /**
   * `/reset`: after its queued work, the conversation's context document becomes `note` (dated now),
   * so the next sessions' prompts leave out every entry and archived summary from before it; the
   * archive keeps them (search finds them) and `/forget confirm` still deletes them. False (and
   * nothing written) when nothing is remembered.
   */
  leaveOutEarlier(key: string, note: string): Promise<boolean> {
    return this.#queue.run(key, async () => {
      const { book, clock } = this.#options;
      // A conversation memory knows nothing of (no entries, no document) has nothing to leave out.
      const [count, context] = await Promise.all([book.entryCount(key), book.context(key)]);
      if (count === 0 && !context) return false;
      await book.putContext(key, note, clock.now());
      return true;
    });
  }

  /** Archives the live session if it is still idle once its queued work is done. */
  endIfIdle(key: string): Promise<ArchivedSession | undefined> {
    return this.#queue.run(key, async () => {
      if (!(await this.isIdle(key))) return undefined;
      this.#seen.delete(key);
      return this.#options.archiver.archive(key, "idle", this.#requireHistory());
    });
  }

  /**
   * Before a run in the conversation: a live session that has been quiet for the idle time is
   * archived first, so the run starts a new session. The sweep archives such sessions on its own
   * round; when it is behind (a busy process, a cluster's sweep between rounds) a session would
   * otherwise take in the next visit's turns, and its history and every later prompt would keep
   * growing. A session this process saw within the idle time costs no read.
   */
  async closeIfQuiet(key: string): Promise<void> {
    // Seen by this process within the idle time: no read needed.
    if (this.#seen.has(key) && !this.#quietSince(0, key)) return;
    const live = await this.#options.sessions.get(key);
    // No live session (archived already, or a new conversation): nothing to close.
    if (live && this.#quietSince(live.lastActivityAt, key)) await this.endIfIdle(key);
  }

  async isIdle(key: string): Promise<boolean> {
    const live = await this.#options.sessions.get(key);
    return this.#quietSince(live?.lastActivityAt ?? 0, key);
  }

  /** Whether the conversation has been quiet for the idle time since `lastActivityAt` and since this process last saw it. */
  #quietSince(lastActivityAt: number, key: string): boolean {
    const last = Math.max(lastActivityAt, this.#seen.get(key) ?? 0);
    return this.#options.clock.now() - last >= this.#options.idleMs;
  }

  /** Deletes everything remembered about the conversation, after its queued work. */
  forget(key: string): Promise<{ entries: number; sessions: number }> {
    return this.#queue.run(key, async () => {
      const { book, archive, agent, sessions } = this.#options;
      const entries = await book.forget(key);
      const archived = await archive.forget(key);
      await agent.forget(key);
      await sessions.remove(key);
      await this.#requireHistory().replaceHistory(key, []);
      this.#seen.delete(key);
      return { entries, sessions: archived };
    });
  }

  /** Resolves when every queued memory job has finished. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  async close(): Promise<void> {
    await this.#queue.idle();
  }

  async #recordTurn(key: string, userId: string, userText: string, answer: TurnAnswer): Promise<void> {
    const { agent, sessions, compactor, flushEvery, clock } = this.#options;
    await sessions.touch(key, userId, clock.now());
    const work = this.#options.recorder?.begin(key, userId);
    const started = clock.now();
    let control: string = ControlState.PROCESS_MESSAGE;
    const turn: TranscriptLine[] = [
      { role: "user" as const, text: userText },
      { role: "bot" as const, text: answer.text },
    ].filter((line) => line.text.trim() !== "");
    try {
      const state = await agent.state(key);
      // A turn with lines starts the session itself, its record written with them (one commit).
      if (state?.startedAt == null && turn.length === 0)
        await agent.invoke(key, { control: ControlState.START_SESSION }, work?.steps);
      if (turn.length > 0) {
        const before = state?.startedAt == null ? 0 : state.messageCount;
        const after = before + turn.length;
        const turnControl = controlForTurn(before, after, flushEvery);
        control = turnControl;
        // Most turns only join the session; every flushEvery messages one model call records them all.
        await agent.invoke(key, { control: turnControl, turn }, work?.steps);
      }
      await compactor.compactIfOverBudget(key, this.#requireHistory(), {
        steps: work?.steps,
        knownTokens: answer.historyTokens,
      });
      work?.finish({
        control,
        messages: turn.length,
        latencyMs: clock.now() - started,
        routine: control === ControlState.PROCESS_MESSAGE,
      });
    } catch (error) {
      work?.finish({ control, messages: turn.length, latencyMs: clock.now() - started, error });
      throw error;
    }
  }

  #requireHistory(): ConversationHistory {
    if (!this.#history) throw new MemoryNotAttachedError();
    return this.#history;
  }
}
