import type { BaseMessage } from "@langchain/core/messages";
import { Annotation, messagesStateReducer } from "@langchain/langgraph";
import { ControlState } from "./control-state.ts";

const lastValue = <T>(initial: () => T) =>
  Annotation<T>({ reducer: (_previous, next) => next, default: initial });

/**
 * The memory graph's state, checkpointed per conversation under `memory:<key>`.
 * `session` accumulates across runs (the live session's messages, as ChatMessages with role
 * user / bot / system); everything else is replaced by whoever writes it.
 */
export const MemoryState = Annotation.Root({
  session: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
  /** The one message this run records; null for START_SESSION and END_SESSION. */
  toProcess: lastValue<BaseMessage | null>(() => null),
  /** This run's model replies and tool results; every run's input resets it. */
  toolHistory: lastValue<BaseMessage[]>(() => []),
  control: lastValue<ControlState>(() => ControlState.START_SESSION),
  /** Messages recorded in this session: decides when to flush, and survives restarts. */
  messageCount: lastValue<number>(() => 0),
  /** When the live session started; null when none is live. */
  startedAt: lastValue<number | null>(() => null),
  /** The context loaded at START_SESSION, given to the team's agents for the whole session. */
  sessionContext: lastValue<string | null>(() => null),
  /** What compaction removed from the live history, condensed; null until the first compaction. */
  digest: lastValue<string | null>(() => null),
});

export type MemoryStateValue = typeof MemoryState.State;
export type MemoryStateUpdate = typeof MemoryState.Update;
