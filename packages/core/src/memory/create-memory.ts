import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Command } from "../commands/command.ts";
import type { TurnObserver } from "../engine/responder.ts";
import type { ModelCallLimits } from "../models/retry.ts";
import { type Clock, systemClock } from "../runtime/clock.ts";
import { type Logger, silentLogger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import { LiveSessions } from "./active-sessions.ts";
import type { ArchivedSession, ArchiveStore } from "./archive/archive-store.ts";
import { openArchiveStore } from "./archive/open-archive-store.ts";
import { HistoryCompactor } from "./compaction.ts";
import type { ConversationHistory } from "./conversation-history.ts";
import { type FreshStart, freshStartOfMemory } from "./fresh-start.ts";
import { IdleSweeper } from "./idle-sweeper.ts";
import { MemoryAgent } from "./memory-agent.ts";
import { MemoryBook } from "./memory-book.ts";
import { memoryCommands } from "./memory-commands.ts";
import { type MemoryConfig, type MemoryConfigInput, memoryConfigSchema } from "./memory-config.ts";
import { MemoryInvoker } from "./memory-invoker.ts";
import type { MemoryWorkRecorder } from "./memory-work.ts";
import { createSearchMemoryTool, SEARCH_MEMORY } from "./search-tool.ts";
import { SessionArchiver } from "./session-archiver.ts";
import { withDigest } from "./session-context.ts";
import { SessionStore } from "./session-store.ts";
import { Summarizer } from "./summarize.ts";
import { type ThreadNote, threadNotes } from "./thread-notes.ts";

export interface CreateMemoryOptions {
  readonly store: Store;
  /** The URL `store` was opened from: SQLite gets FTS5 archive tables in the same file. */
  readonly storeUrl: string;
  /** The team's checkpointer; the memory graph checkpoints under `memory:<conversation key>`. */
  readonly checkpointer: BaseCheckpointSaver;
  /**
   * Writes entries and context documents; must support tool calling. Leave it out when no real
   * model is configured (the built-in offline model): entries and summaries are then extractive
   * and no context document is written.
   */
  readonly model?: BaseChatModel;
  /** Writes archive and compaction summaries (the `summaryModel` config); `model` when absent. */
  readonly summaryModel?: BaseChatModel;
  readonly config?: MemoryConfig | MemoryConfigInput;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Relative SQLite paths in `storeUrl` resolve against this (default: the working directory). */
  readonly cwd?: string;
  /** Records each turn's memory work (the run-steps log). */
  readonly recorder?: MemoryWorkRecorder | undefined;
  /** Attempts and per-attempt timeout of memory's model calls (the `model:` config). */
  readonly modelCalls?: Omit<ModelCallLimits, "signal">;
  /** How long `close()` lets queued memory work finish before it cuts model calls short. */
  readonly closeGraceMs?: number;
  /** `/forget confirm` also deletes what else the conversation keeps (its files); returns how many went. */
  readonly forgetAlso?: (key: string) => Promise<number>;
}

/** Everything the CLI wires: pass each piece to the Team or the Engine, then `attach(team)`. */
export interface Memory {
  readonly config: MemoryConfig;
  /** Engine `observers`: records each answered turn after delivery. */
  readonly observer: TurnObserver;
  /** Team `contextFor`. */
  readonly contextFor: (key: string) => Promise<string | undefined>;
  /** Merge into the Team's `tools` registry (`search_memory`). */
  readonly tools: Readonly<Record<string, StructuredToolInterface>>;
  /**
   * Team `beforeRun`: archives the conversation's session when it has been quiet for the idle time
   * and the sweep has not archived it yet, so a session never spans a quiet spell.
   */
  readonly beforeRun: (key: string) => Promise<void>;
  /** Engine `commands` (/memory, /forget). */
  readonly commands: readonly Command[];
  readonly sweeper: IdleSweeper;
  readonly archive: ArchiveStore;
  readonly book: MemoryBook;
  readonly agent: MemoryAgent;
  /**
   * Team `freshStart`: `/new` and `/reset` archive the live session (searchable afterwards); `/reset`
   * also leaves everything remembered so far out of the prompts. Returns the sentences that say so.
   */
  freshStart(key: string, kind: FreshStart): Promise<string[]>;
  /** What memory wrote about a conversation (since `since`), oldest first: for /summary and catching up. */
  notesOf(key: string, since?: number): Promise<ThreadNote[]>;
  /** Gives memory the team's live history (compaction, clearing on archive). */
  attach(history: ConversationHistory): void;
  /** Starts the idle sweeper on this process's timer (no-op when memory is disabled). */
  start(): void;
  /**
   * One round of the idle sweeper, without a timer (a cluster runs it once per cluster): archives
   * the sessions quiet for the idle time. Nothing when memory is disabled.
   */
  sweep(): Promise<ArchivedSession[]>;
  /** How often the idle sweeper runs. */
  readonly sweepIntervalMs: number;
  /** Resolves when queued memory work is done (tests; shutdown uses `close`). */
  idle(): Promise<void>;
  /** Stops the sweeper, finishes queued memory work, closes the archive. */
  close(): Promise<void>;
}

/** Queued memory work usually finishes in this time; a hung model call does not hold shutdown longer. */
const DEFAULT_CLOSE_GRACE_MS = 1_000;

/** Waits for `work`, or `ms`, whichever comes first. */
async function finishedWithin(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Builds the memory agent and everything around it from one config section. */
export function createMemory(options: CreateMemoryOptions): Memory {
  const config = memoryConfigSchema.parse(options.config ?? {});
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const book = new MemoryBook(options.store);
  const archive = openArchiveStore(options.store, options.storeUrl, options.cwd);
  const sessions = new LiveSessions(options.store);
  // Aborted by close(): shutdown never waits on a hung memory model call; the step it was for is
  // then recorded without the model (extractively), so nothing queued is lost.
  const shutdown = new AbortController();
  const modelCalls: ModelCallLimits = { ...options.modelCalls, signal: shutdown.signal };
  const summarizer = new Summarizer(options.summaryModel ?? options.model, logger, modelCalls);
  const agent = new MemoryAgent({
    checkpointer: options.checkpointer,
    model: options.model,
    book,
    archive,
    sessions: new SessionStore(options.store),
    recentEntries: config.recentEntries,
    summariesInPrompt: config.summariesInPrompt,
    clock,
    logger,
    modelCalls,
  });
  const idleMs = config.idleMinutes * 60_000;
  const invoker = new MemoryInvoker({
    agent,
    book,
    archive,
    sessions,
    archiver: new SessionArchiver({
      agent,
      archive,
      sessions,
      summarizer,
      book,
      clock,
      logger,
      recorder: options.recorder,
    }),
    compactor: new HistoryCompactor({ agent, summarizer, budgetTokens: config.historyTokenBudget, logger }),
    flushEvery: config.flushEvery,
    idleMs,
    clock,
    logger,
    ...(options.recorder ? { recorder: options.recorder } : {}),
  });
  const sweeper = new IdleSweeper({ sessions, invoker, idleMs, clock, logger });
  const enabled = config.enabled;

  const contextFor = async (key: string): Promise<string | undefined> => {
    if (!enabled) return undefined;
    invoker.noteActivity(key);
    // Asked on every model call of the team: one small record, never the memory graph's checkpoint.
    const live = await agent.session(key);
    // A live session keeps the context it started with (stable prompts); otherwise the next
    // session's context is what START_SESSION is about to load.
    const context = live ? withDigest(live.context, live.digest) : await agent.loadContext(key);
    return context === "" ? undefined : context;
  };

  return {
    config,
    observer: enabled ? invoker : {},
    contextFor,
    beforeRun: async (key) => {
      if (enabled) await invoker.closeIfQuiet(key);
    },
    tools: { [SEARCH_MEMORY]: createSearchMemoryTool(archive, config.scope, clock) },
    commands: enabled
      ? memoryCommands({
          book,
          archive,
          invoker,
          flushEvery: config.flushEvery,
          ...(options.forgetAlso ? { forgetAlso: options.forgetAlso } : {}),
          pendingMessages: async (key) => {
            const live = await agent.session(key);
            return live ? live.messageCount - live.recordedUpTo : 0;
          },
        })
      : [],
    sweeper,
    archive,
    book,
    agent,
    freshStart: async (key, kind) => (enabled ? freshStartOfMemory(invoker, clock, key, kind) : []),
    notesOf: async (key, since) => (enabled ? threadNotes({ archive, book, agent }, key, since) : []),
    attach: (history) => invoker.attach(history),
    start: () => {
      if (enabled) sweeper.start();
    },
    sweep: async () => (enabled ? sweeper.sweep() : []),
    sweepIntervalMs: sweeper.intervalMs,
    idle: () => invoker.idle(),
    async close() {
      sweeper.stop();
      await finishedWithin(invoker.idle(), options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS);
      shutdown.abort(new Error("memory is closing"));
      await invoker.close();
      await archive.close();
    },
  };
}
