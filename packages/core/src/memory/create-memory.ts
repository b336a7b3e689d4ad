import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Command } from "../commands/command.ts";
import type { TurnObserver } from "../engine/responder.ts";
import { type Clock, systemClock } from "../runtime/clock.ts";
import { type Logger, silentLogger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import { LiveSessions } from "./active-sessions.ts";
import type { ArchiveStore } from "./archive/archive-store.ts";
import { openArchiveStore } from "./archive/open-archive-store.ts";
import { HistoryCompactor } from "./compaction.ts";
import type { ConversationHistory } from "./conversation-history.ts";
import { IdleSweeper } from "./idle-sweeper.ts";
import { MemoryAgent } from "./memory-agent.ts";
import { MemoryBook } from "./memory-book.ts";
import { memoryCommands } from "./memory-commands.ts";
import { type MemoryConfig, type MemoryConfigInput, memoryConfigSchema } from "./memory-config.ts";
import { MemoryInvoker } from "./memory-invoker.ts";
import { createSearchMemoryTool, SEARCH_MEMORY } from "./search-tool.ts";
import { SessionArchiver } from "./session-archiver.ts";
import { withDigest } from "./session-context.ts";
import { SessionStore } from "./session-store.ts";
import { Summarizer } from "./summarize.ts";

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
  /** Engine `commands` (/memory, /forget). */
  readonly commands: readonly Command[];
  readonly sweeper: IdleSweeper;
  readonly archive: ArchiveStore;
  readonly book: MemoryBook;
  readonly agent: MemoryAgent;
  /** Gives memory the team's live history (compaction, clearing on archive). */
  attach(history: ConversationHistory): void;
  /** Starts the idle sweeper (no-op when memory is disabled). */
  start(): void;
  /** Resolves when queued memory work is done (tests; shutdown uses `close`). */
  idle(): Promise<void>;
  /** Stops the sweeper, finishes queued memory work, closes the archive. */
  close(): Promise<void>;
}

/** Builds the memory agent and everything around it from one config section. */
export function createMemory(options: CreateMemoryOptions): Memory {
  const config = memoryConfigSchema.parse(options.config ?? {});
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const book = new MemoryBook(options.store);
  const archive = openArchiveStore(options.store, options.storeUrl, options.cwd);
  const sessions = new LiveSessions(options.store);
  const summarizer = new Summarizer(options.summaryModel ?? options.model, logger);
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
  });
  const idleMs = config.idleMinutes * 60_000;
  const invoker = new MemoryInvoker({
    agent,
    book,
    archive,
    sessions,
    archiver: new SessionArchiver({ agent, archive, sessions, summarizer, clock, logger }),
    compactor: new HistoryCompactor({ agent, summarizer, budgetTokens: config.historyTokenBudget, logger }),
    flushEvery: config.flushEvery,
    idleMs,
    clock,
    logger,
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
    tools: { [SEARCH_MEMORY]: createSearchMemoryTool(archive, config.scope) },
    commands: enabled ? memoryCommands({ book, archive, invoker }) : [],
    sweeper,
    archive,
    book,
    agent,
    attach: (history) => invoker.attach(history),
    start: () => {
      if (enabled) sweeper.start();
    },
    idle: () => invoker.idle(),
    async close() {
      sweeper.stop();
      await invoker.close();
      await archive.close();
    },
  };
}
