import type { Callbacks } from "@langchain/core/callbacks/manager";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { ModelCallLimits } from "../models/retry.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { ArchiveStore, TranscriptLine } from "./archive/archive-store.ts";
import type { ControlState } from "./control-state.ts";
import type { MemoryBook } from "./memory-book.ts";
import { buildMemoryGraph, type MemoryGraph } from "./memory-graph.ts";
import type { MemoryStateValue } from "./memory-state.ts";
import { memoryToolConfig, memoryTools } from "./memory-tools.ts";
import { composeSessionContext, loadRememberedContext } from "./session-context.ts";
import type { SessionRecord, SessionStore } from "./session-store.ts";
import { spokenLines } from "./transcript.ts";

export interface MemoryAgentOptions {
  readonly checkpointer: BaseCheckpointSaver;
  /** Absent: entries are recorded extractively and no context document is written. */
  readonly model: BaseChatModel | undefined;
  readonly book: MemoryBook;
  readonly archive: ArchiveStore;
  readonly sessions: SessionStore;
  readonly recentEntries: number;
  readonly summariesInPrompt: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Attempts, per-attempt timeout and the shutdown signal of the memory model's calls. */
  readonly modelCalls?: ModelCallLimits;
}

/** One run of the memory graph. */
export type MemoryRun =
  | { readonly control: typeof ControlState.START_SESSION | typeof ControlState.END_SESSION }
  | {
      readonly control: typeof ControlState.PROCESS_MESSAGE | typeof ControlState.PROCESS_MESSAGE_AND_FLUSH;
      /** One turn: the user's message, then the answer (left out when there was none). */
      readonly turn: readonly TranscriptLine[];
      /** The position of the turn's last message in the session, from 1. */
      readonly messageCount: number;
    };

/** A conversation's session as the rest of memory sees it. */
export interface MemorySessionState {
  /** Messages recorded in the live session (0 when none is live): survives restarts. */
  readonly messageCount: number;
  /** When the live session started; null when none is live. */
  readonly startedAt: number | null;
  /** The context loaded at START_SESSION, given to the team's agents for the whole session. */
  readonly sessionContext: string | null;
  /** What compaction removed from the live history, condensed; null until the first compaction. */
  readonly digest: string | null;
}

/** The graph's own checkpoint thread for a conversation, beside the team's (same checkpointer). */
export function memoryThreadOf(key: string): string {
  return `memory:${key}`;
}

/**
 * The memory agent: a checkpointed graph per conversation, driven only by control states.
 * It keeps no state in process memory; everything it knows is in its checkpoint (the message
 * counter) and the store (the session's record and lines, entries, context documents).
 */
export class MemoryAgent {
  readonly #options: MemoryAgentOptions;
  readonly #graph: MemoryGraph;

  constructor(options: MemoryAgentOptions) {
    this.#options = options;
    this.#graph = buildMemoryGraph({
      checkpointer: options.checkpointer,
      ...(options.modelCalls ? { modelCalls: options.modelCalls } : {}),
      model: options.model,
      tools: memoryTools(options.book, options.clock),
      book: options.book,
      sessions: options.sessions,
      loadContext: (key) => this.loadContext(key),
      clock: options.clock,
      logger: options.logger,
    });
  }

  /** One graph run, then the session it leaves; `callbacks` (the run-steps log) see its model calls. */
  async invoke(key: string, run: MemoryRun, callbacks?: Callbacks): Promise<MemorySessionState> {
    const messageCount = await this.run(key, run, callbacks);
    return sessionState(messageCount, await this.session(key));
  }

  /** One graph run; returns the session's message count after it (no further store read). */
  async run(key: string, run: MemoryRun, callbacks?: Callbacks): Promise<number> {
    const turn = "turn" in run ? [...run.turn] : [];
    const input =
      "turn" in run
        ? { control: run.control, toProcess: turn, toolHistory: [], messageCount: run.messageCount }
        : { control: run.control, toProcess: [], toolHistory: [] };
    const values = (await this.#graph.invoke(input, {
      configurable: {
        thread_id: memoryThreadOf(key),
        ...memoryToolConfig({ conversationKey: key, turn }),
      },
      ...(callbacks ? { callbacks } : {}),
      recursionLimit: 25,
      // One checkpoint when the run ends instead of one per step: a run interrupted by a crash is
      // lost either way, since the queue that runs it is in memory.
      durability: "exit",
    })) as MemoryStateValue;
    return values.messageCount;
  }

  /** The conversation's session, or undefined before its first session (and after `forget`). */
  async state(key: string): Promise<MemorySessionState | undefined> {
    const [snapshot, record] = await Promise.all([
      this.#graph.getState({ configurable: { thread_id: memoryThreadOf(key) } }),
      this.session(key),
    ]);
    const values = snapshot.values as Partial<MemoryStateValue> | undefined;
    const checkpointed = values !== undefined && Object.keys(values).length > 0;
    if (!checkpointed && !record) return undefined;
    return sessionState(values?.messageCount ?? 0, record);
  }

  /**
   * The live session's record without touching the checkpoint: one small store read, whatever
   * the session's length (the team asks on every model call). Undefined when no session is live.
   */
  session(key: string): Promise<SessionRecord | undefined> {
    return this.#options.sessions.record(key);
  }

  /** The live session's messages, the whole of them, as an archive keeps them. */
  async transcript(key: string, messageCount: number): Promise<TranscriptLine[]> {
    return spokenLines(await this.#options.sessions.lines(key, 1, messageCount));
  }

  /** Records what compaction condensed, for the rest of the live session; false when none is live. */
  setDigest(key: string, digest: string): Promise<boolean> {
    return this.#options.sessions.setDigest(key, digest);
  }

  /** What START_SESSION loads: the context for the team's agents, "" when nothing is remembered. */
  async loadContext(key: string): Promise<string> {
    const { book, archive, recentEntries, summariesInPrompt } = this.#options;
    return composeSessionContext(
      await loadRememberedContext(key, { book, archive, recentEntries, summariesInPrompt }),
    );
  }

  async forget(key: string): Promise<void> {
    const state = await this.state(key);
    await this.#options.sessions.end(key, state?.messageCount ?? 0);
    await this.#options.checkpointer.deleteThread(memoryThreadOf(key));
  }
}

function sessionState(messageCount: number, record: SessionRecord | undefined): MemorySessionState {
  return {
    messageCount,
    startedAt: record?.startedAt ?? null,
    sessionContext: record?.context ?? null,
    digest: record?.digest ?? null,
  };
}
