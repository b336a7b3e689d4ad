import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { LiveSessions } from "./active-sessions.ts";
import {
  type ArchivedSession,
  type ArchiveReason,
  type ArchiveStore,
  sessionId,
  workspaceOf,
} from "./archive/archive-store.ts";
import { ControlState } from "./control-state.ts";
import type { ConversationHistory } from "./conversation-history.ts";
import type { MemoryAgent } from "./memory-agent.ts";
import type { Summarizer } from "./summarize.ts";
import { estimateTranscriptTokens } from "./transcript.ts";

export interface SessionArchiverOptions {
  readonly agent: MemoryAgent;
  readonly archive: ArchiveStore;
  readonly sessions: LiveSessions;
  readonly summarizer: Summarizer;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Ends a live session: archives its transcript with a short summary, has the memory agent write
 * the final context document (END_SESSION), and clears the team's live history, so the next
 * session's prompts start small and carry the summaries instead.
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
    const { agent, archive, sessions, summarizer, clock, logger } = this.#options;
    const state = await agent.state(key);
    const live = await sessions.get(key);
    if (state?.startedAt == null) {
      await sessions.remove(key);
      return undefined;
    }
    // The one read of the whole session, once per session.
    const transcript = await agent.transcript(key, state.messageCount);
    let archived: ArchivedSession | undefined;
    // Archive before resetting anything: a crash part-way archives the same session again (same
    // id, so it replaces itself) instead of losing it.
    if (transcript.length > 0) {
      archived = {
        id: sessionId(key, state.startedAt),
        conversationKey: key,
        workspace: workspaceOf(key),
        participants: live?.participants ?? [],
        summary: await summarizer.summarize(transcript),
        transcript,
        messageCount: transcript.length,
        tokenEstimate: estimateTranscriptTokens(transcript),
        startedAt: state.startedAt,
        endedAt: live?.lastActivityAt ?? clock.now(),
        reason,
      };
      await archive.add(archived);
    }
    await agent.run(key, { control: ControlState.END_SESSION });
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
}
