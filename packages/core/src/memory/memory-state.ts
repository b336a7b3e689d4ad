import type { BaseMessage } from "@langchain/core/messages";
import { Annotation } from "@langchain/langgraph";
import type { TranscriptLine } from "./archive/archive-store.ts";
import { ControlState, type ModelControl } from "./control-state.ts";

const lastValue = <T>(initial: () => T) =>
  Annotation<T>({ reducer: (_previous, next) => next, default: initial });

/**
 * The memory graph's state, checkpointed per conversation under `memory:<key>`. Every channel is
 * small and replaced by whoever writes it, and a run leaves `toProcess` empty, so the checkpoint
 * costs the same however long the session is. The session itself (its record, with the message
 * counter, and its messages) is in the store (`session-store.ts`).
 */
export const MemoryState = Annotation.Root({
  /** The messages this run records: every one since the last flush, oldest first. */
  toProcess: lastValue<TranscriptLine[]>(() => []),
  /** This run's model replies and tool results; every run's input resets it. */
  toolHistory: lastValue<BaseMessage[]>(() => []),
  control: lastValue<ModelControl>(() => ControlState.PROCESS_MESSAGE_AND_FLUSH),
});

export type MemoryStateValue = typeof MemoryState.State;
export type MemoryStateUpdate = typeof MemoryState.Update;
