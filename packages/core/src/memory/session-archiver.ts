import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { LiveSession, LiveSessions } from "./active-sessions.ts";
import {
  type ArchivedSession,
  type ArchiveReason,
  type ArchiveStore,
  sessionId,
  type TranscriptLine,
  workspaceOf,
} from "./archive/archive-store.ts";
import { ControlState } from "./control-state.ts";
import type { ConversationHistory } from "./conversation-history.ts";
import type { MemoryAgent, MemorySessionState } from "./memory-agent.ts";
import type { MemoryBook } from "./memory-book.ts";
import type { MemoryWork, MemoryWorkRecorder } from "./memory-work.ts";
import type { Summarizer } from "./summarize.ts";
import { estimateTranscriptTokens } from "./transcript.ts";

export interface SessionArchiverOptions {
  readonly agent: MemoryAgent;
  readonly archive: ArchiveStore;
  readonly sessions: LiveSessions;
  readonly summarizer: Summarizer;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly book: MemoryBook;
  /** Records each archiving as a run of its own (the run-steps log), with its model calls. */
  readonly recorder?: MemoryWorkRecorder | undefined;
}

/**
 * Ends a live session: the memory agent records the turns not flushed yet and writes the final
 * context document (one call, none when nothing is pending), the session is archived with a short
 * summary written from its entries (short already, so the summary call does not read the whole
 * transcript again), the session's state is reset (END_SESSION) and the team's live history
 * cleared, so the next session's prompts start small and carry the summaries instead.
 */
export class SessionArchiver {
  readonly #options: SessionArchiverOptions;

  constructor(options: SessionArchiverOptions) {
    this.#options = options;
  }

  /** The archived session, or undefined when the conversation had no live session to archive. */
  async archive(
    key: string,
    reason: ArchiveReason,
    history: ConversationHistory,
  ): Promise<ArchivedSession | undefined> {
    const { agent, sessions, clock } = this.#options;
    const state = await agent.state(key);
    const live = await sessions.get(key);
    if (state?.startedAt == null) {
      await sessions.remove(key);
      return undefined;
    }
    const work = this.#options.recorder?.begin(key, live?.participants[0] ?? "");
    const started = clock.now();
    try {
      const archived = await this.#archive(
        key,
        reason,
        history,
        { ...state, startedAt: state.startedAt },
        live,
        work,
      );
      work?.finish({ control: "archive", messages: state.messageCount, latencyMs: clock.now() - started });
      return archived;
    } catch (error) {
      work?.finish({
        control: "archive",
        messages: state.messageCount,
        latencyMs: clock.now() - started,
        error,
      });
      throw error;
    }
  }

  async #archive(
    key: string,
    reason: ArchiveReason,
    history: ConversationHistory,
    state: MemorySessionState & { startedAt: number },
    live: LiveSession | undefined,
    work: MemoryWork | undefined,
  ): Promise<ArchivedSession | undefined> {
    const { agent, archive, sessions, summarizer, clock, logger } = this.#options;
    // The one read of the whole session, once per session.
    const transcript = await agent.transcript(key, state.messageCount);
    // The turns since the last flush become entries first: the summary is written from them.
    await agent.invoke(key, { control: ControlState.PROCESS_MESSAGE_AND_FLUSH, turn: [] }, work?.steps);
    let archived: ArchivedSession | undefined;
    // Archive before resetting anything: a crash part-way archives the same session again (same
    // id, so it replaces itself) instead of losing it.
    if (transcript.length > 0) {
      archived = {
        id: sessionId(key, state.startedAt),
        conversationKey: key,
        workspace: workspaceOf(key),
        participants: live?.participants ?? [],
        summary: await summarizer.summarize(await this.#entryLines(key, state, transcript), {
          extractiveFrom: transcript,
          steps: work?.steps,
        }),
        transcript,
        messageCount: transcript.length,
        tokenEstimate: estimateTranscriptTokens(transcript),
        startedAt: state.startedAt,
        endedAt: live?.lastActivityAt ?? clock.now(),
        reason,
      };
      await archive.add(archived);
    }
    await agent.invoke(key, { control: ControlState.END_SESSION }, work?.steps);
    await history.replaceHistory(key, []);
    await sessions.remove(key);
    logger.info("session archived", {
      key,
      reason,
      messages: transcript.length,
      tokens: archived?.tokenEstimate ?? 0,
    });
    return archived;
  }

  /** The session as its entries tell it (one short summary per message); its words where an entry is missing. */
  async #entryLines(
    key: string,
    state: MemorySessionState & { startedAt: number },
    transcript: readonly TranscriptLine[],
  ): Promise<TranscriptLine[]> {
    const entries = (await this.#options.book.recentEntries(key, state.messageCount)).filter(
      (entry) => entry.at >= state.startedAt,
    );
    return entries.length >= transcript.length
      ? entries.map((entry) => ({ role: entry.role, text: entry.summary }))
      : [...transcript];
  }
}
