import type { BaseMessage } from "@langchain/core/messages";
import { Annotation } from "@langchain/langgraph";
import type { TranscriptLine } from "./archive/archive-store.ts";
import { ControlState } from "./control-state.ts";

const lastValue = <T>(initial: () => T) =>
  Annotation<T>({ reducer: (_previous, next) => next, default: initial });

/**
 * The memory graph's state, checkpointed per conversation under `memory:<key>`. Every channel is
 * small and replaced by whoever writes it, so a run's checkpoint costs the same at the 5th message
 * of a session as at the 500th. The session itself (its context and its messages) is in the
 * store (`session-store.ts`), where a run reads only what its prompt shows.
 */
export const MemoryState = Annotation.Root({
  /** The turn this run records (the user's message, then the answer); empty for START_SESSION and END_SESSION. */
  toProcess: lastValue<TranscriptLine[]>(() => []),
  /** This run's model replies and tool results; every run's input resets it. */
  toolHistory: lastValue<BaseMessage[]>(() => []),
  control: lastValue<ControlState>(() => ControlState.START_SESSION),
  /**
   * Messages recorded in this session: decides when to flush, numbers the session's lines, and
   * survives restarts. 0 when no session is live.
   */
  messageCount: lastValue<number>(() => 0),
  /** `messageCount` when the context document was last rewritten in this session: what it already holds. */
  flushedAt: lastValue<number>(() => 0),
});

export type MemoryStateValue = typeof MemoryState.State;
export type MemoryStateUpdate = typeof MemoryState.Update;
