/** What one memory graph run does (the graph's input decides; the graph never guesses). */
export const ControlState = {
  /** Deterministic: load the context document, recent entries and earlier summaries. No model. */
  START_SESSION: "start_session",
  /** The model records one turn — the user's message and the answer — in one call (`add_entry`). */
  PROCESS_MESSAGE: "process_message",
  /** The same, and in the same call the model rewrites the context document (`put_context`). */
  PROCESS_MESSAGE_AND_FLUSH: "process_message_and_flush",
  /** The model writes the final context document; the session's state is reset. */
  END_SESSION: "end_session",
} as const;

export type ControlState = (typeof ControlState)[keyof typeof ControlState];

/** The control for the `count`th message of a session (from 1): every `flushEvery`th one flushes. */
export function controlForMessage(count: number, flushEvery: number): ControlState {
  return count > 0 && count % flushEvery === 0
    ? ControlState.PROCESS_MESSAGE_AND_FLUSH
    : ControlState.PROCESS_MESSAGE;
}

/**
 * The control for a turn that takes the session from `before` to `after` messages: it flushes when
 * it reaches or crosses a multiple of `flushEvery` (a turn is two messages, so it may step over one).
 */
export function controlForTurn(before: number, after: number, flushEvery: number): ControlState {
  return Math.floor(after / flushEvery) > Math.floor(before / flushEvery)
    ? ControlState.PROCESS_MESSAGE_AND_FLUSH
    : ControlState.PROCESS_MESSAGE;
}

/** One step of a graph run, decided from the control and the last tool that ran. */
export type MemoryStep = "load-context" | "add-entry" | "put-context" | "finish";

export function nextMemoryStep(control: ControlState, lastTool: string | null): MemoryStep {
  switch (control) {
    case ControlState.START_SESSION:
      return lastTool === null ? "load-context" : "finish";
    case ControlState.PROCESS_MESSAGE:
      return lastTool === null ? "add-entry" : "finish";
    case ControlState.PROCESS_MESSAGE_AND_FLUSH:
      if (lastTool === null) return "add-entry";
      return lastTool === "add_entry" ? "put-context" : "finish";
    case ControlState.END_SESSION:
      return lastTool === null ? "put-context" : "finish";
  }
}
