import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { ArchiveStore } from "./archive/archive-store.ts";
import type { ControlState } from "./control-state.ts";
import type { MemoryBook, SpeakerRole } from "./memory-book.ts";
import { buildMemoryGraph, type MemoryGraph } from "./memory-graph.ts";
import type { MemoryStateValue } from "./memory-state.ts";
import { memoryToolConfig, memoryTools } from "./memory-tools.ts";
import { composeSessionContext, loadRememberedContext } from "./session-context.ts";

export interface MemoryAgentOptions {
  readonly checkpointer: BaseCheckpointSaver;
  /** Absent: entries are recorded extractively and no context document is written. */
  readonly model: BaseChatModel | undefined;
  readonly book: MemoryBook;
  readonly archive: ArchiveStore;
  readonly recentEntries: number;
  readonly summariesInPrompt: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** One run of the memory graph. */
export type MemoryRun =
  | { readonly control: typeof ControlState.START_SESSION | typeof ControlState.END_SESSION }
  | {
      readonly control: typeof ControlState.PROCESS_MESSAGE | typeof ControlState.PROCESS_MESSAGE_AND_FLUSH;
      readonly message: ChatMessage;
      readonly role: SpeakerRole;
      /** The message's position in the session, from 1. */
      readonly messageCount: number;
    };

/** The graph's own checkpoint thread for a conversation, beside the team's (same checkpointer). */
export function memoryThreadOf(key: string): string {
  return `memory:${key}`;
}

/**
 * The memory agent: a checkpointed graph per conversation, driven only by control states.
 * It keeps no state in process memory; everything it knows is in its checkpoint and the store.
 */
export class MemoryAgent {
  readonly #options: MemoryAgentOptions;
  readonly #graph: MemoryGraph;

  constructor(options: MemoryAgentOptions) {
    this.#options = options;
    this.#graph = buildMemoryGraph({
      checkpointer: options.checkpointer,
      model: options.model,
      tools: memoryTools(options.book, options.clock),
      book: options.book,
      loadContext: (key) => this.loadContext(key),
      clock: options.clock,
      logger: options.logger,
    });
  }

  async invoke(key: string, run: MemoryRun): Promise<MemoryStateValue> {
    const isMessage = "message" in run;
    const input = isMessage
      ? {
          control: run.control,
          toProcess: run.message,
          session: [run.message],
          toolHistory: [],
          messageCount: run.messageCount,
        }
      : { control: run.control, toProcess: null, toolHistory: [] };
    return this.#graph.invoke(input, {
      configurable: {
        thread_id: memoryThreadOf(key),
        ...memoryToolConfig({ conversationKey: key, role: isMessage ? run.role : "user" }),
      },
      recursionLimit: 25,
      // One checkpoint when the run ends instead of one per step (each rewrote the session so far):
      // a run interrupted by a crash is lost either way, since the queue that runs it is in memory.
      durability: "exit",
    });
  }

  /** The conversation's memory state, or undefined before its first session. */
  async state(key: string): Promise<MemoryStateValue | undefined> {
    const snapshot = await this.#graph.getState({ configurable: { thread_id: memoryThreadOf(key) } });
    const values = snapshot.values as MemoryStateValue | undefined;
    return values && Object.keys(values).length > 0 ? values : undefined;
  }

  /** Records what compaction condensed, for the rest of the live session. */
  async setDigest(key: string, digest: string): Promise<void> {
    await this.#graph.updateState(
      { configurable: { thread_id: memoryThreadOf(key) } },
      { digest },
      "observe",
    );
  }

  /** What START_SESSION loads: the context for the team's agents, "" when nothing is remembered. */
  async loadContext(key: string): Promise<string> {
    const { book, archive, recentEntries, summariesInPrompt } = this.#options;
    return composeSessionContext(
      await loadRememberedContext(key, { book, archive, recentEntries, summariesInPrompt }),
    );
  }

  async forget(key: string): Promise<void> {
    await this.#options.checkpointer.deleteThread(memoryThreadOf(key));
  }
}
