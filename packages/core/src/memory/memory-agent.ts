import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { ModelCallLimits } from "../models/retry.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { RUN_STEPS_KEY, type StepSink } from "../steps/step-sink.ts";
import type { ArchiveStore, TranscriptLine } from "./archive/archive-store.ts";
import { ControlState, type ModelControl } from "./control-state.ts";
import type { MemoryBook } from "./memory-book.ts";
import { buildMemoryGraph, type MemoryGraph } from "./memory-graph.ts";
import { turnsOf } from "./memory-prompts.ts";
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

/** One step of the memory protocol for a conversation. */
export type MemoryRun =
  | { readonly control: typeof ControlState.START_SESSION | typeof ControlState.END_SESSION }
  | {
      readonly control: typeof ControlState.PROCESS_MESSAGE | typeof ControlState.PROCESS_MESSAGE_AND_FLUSH;
      /** One turn: the user's message, then the answer (left out when there was none). */
      readonly turn: readonly TranscriptLine[];
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
 * The memory agent, driven only by control states. START_SESSION and PROCESS_MESSAGE are
 * deterministic (a few store reads and writes, no model, no graph run): most turns cost no model
 * call at all. PROCESS_MESSAGE_AND_FLUSH and END_SESSION run the checkpointed graph, whose one
 * model call records every turn since the last flush and rewrites the context document. It keeps
 * no state in process memory: the session (record with the counter, lines) is in the store.
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
      clock: options.clock,
      logger: options.logger,
    });
  }

  /** One step; `steps` (the run-steps log) records its model and tool calls. */
  async invoke(key: string, run: MemoryRun, steps?: StepSink): Promise<MemorySessionState> {
    const { sessions } = this.#options;
    switch (run.control) {
      case ControlState.START_SESSION:
        return sessionState(await this.#start(key));
      case ControlState.PROCESS_MESSAGE:
      case ControlState.PROCESS_MESSAGE_AND_FLUSH: {
        // Written before any model is asked: the turn is in the session whatever the model does
        // (a new session's record with its first turn).
        const live = await this.session(key);
        const advanced = live
          ? ((await sessions.append(key, run.turn, live)) ?? live)
          : await this.#start(key, run.turn);
        if (run.control === ControlState.PROCESS_MESSAGE) return sessionState(advanced);
        return sessionState(await this.#flush(key, run.control, advanced, steps));
      }
      case ControlState.END_SESSION: {
        const live = await this.session(key);
        if (live) await this.#flush(key, run.control, live, steps);
        await sessions.end(key, live?.messageCount ?? 0);
        return sessionState(undefined);
      }
    }
  }

  async #start(key: string, turn: readonly TranscriptLine[] = []): Promise<SessionRecord> {
    const context = await this.loadContext(key);
    return this.#options.sessions.start(key, this.#options.clock.now(), context, turn);
  }

  /** Records the turns since the last flush and rewrites the context document: one graph run, one call. */
  async #flush(
    key: string,
    control: ModelControl,
    live: SessionRecord,
    steps: StepSink | undefined,
  ): Promise<SessionRecord> {
    const { sessions } = this.#options;
    if (live.recordedUpTo >= live.messageCount) return live;
    const pending = await sessions.lines(key, live.recordedUpTo + 1, live.messageCount);
    await this.#graph.invoke(
      { control, toProcess: pending, toolHistory: [] },
      {
        configurable: {
          thread_id: memoryThreadOf(key),
          ...memoryToolConfig({ conversationKey: key, turns: turnsOf(pending) }),
          ...(steps ? { [RUN_STEPS_KEY]: steps } : {}),
        },
        recursionLimit: 25,
        // One checkpoint when the run ends instead of one per step: a run interrupted by a crash
        // is done again by the next flush, since the marker moves only after it.
        durability: "exit",
      },
    );
    await sessions.markRecorded(key, live.messageCount);
    return { ...live, recordedUpTo: live.messageCount };
  }

  /** The conversation's live session, or undefined when none is live. */
  async state(key: string): Promise<MemorySessionState | undefined> {
    const record = await this.session(key);
    return record ? sessionState(record) : undefined;
  }

  /**
   * The live session's record without touching the checkpoint: one small store read, whatever
   * the session's length (the team asks on every model call). Undefined when no session is live.
   */
  async session(key: string): Promise<SessionRecord | undefined> {
    const record = await this.#options.sessions.record(key);
    if (!record || typeof record.messageCount === "number") return record;
    return this.#adoptCheckpointedCounter(key, record);
  }

  /**
   * A session started before the message counter moved into the record kept it in the graph's
   * checkpoint, and recorded every message as an entry as it came: the counter is taken from there
   * (once; the record keeps it from then on), with everything so far counted as recorded.
   */
  async #adoptCheckpointedCounter(
    key: string,
    record: Omit<SessionRecord, "messageCount" | "recordedUpTo">,
  ): Promise<SessionRecord> {
    const tuple = await this.#options.checkpointer.getTuple({
      configurable: { thread_id: memoryThreadOf(key) },
    });
    const counted: unknown = tuple?.checkpoint.channel_values.messageCount;
    const messageCount = typeof counted === "number" ? counted : 0;
    return this.#options.sessions.adopt(key, { ...record, messageCount, recordedUpTo: messageCount });
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
  /** The live session's messages the memory model has not recorded as entries yet, oldest first. */
  async pendingLines(key: string): Promise<TranscriptLine[]> {
    const live = await this.session(key);
    if (!live || live.recordedUpTo >= live.messageCount) return [];
    return this.#options.sessions.lines(key, live.recordedUpTo + 1, live.messageCount);
  }

  async loadContext(key: string): Promise<string> {
    const { book, archive, recentEntries, summariesInPrompt } = this.#options;
    return composeSessionContext(
      await loadRememberedContext(key, { book, archive, recentEntries, summariesInPrompt }),
    );
  }

  async forget(key: string): Promise<void> {
    const live = await this.session(key);
    await this.#options.sessions.end(key, live?.messageCount ?? 0);
    await this.#options.checkpointer.deleteThread(memoryThreadOf(key));
  }
}

function sessionState(record: SessionRecord | undefined): MemorySessionState {
  return {
    messageCount: record?.messageCount ?? 0,
    startedAt: record?.startedAt ?? null,
    sessionContext: record?.context ?? null,
    digest: record?.digest ?? null,
  };
}
