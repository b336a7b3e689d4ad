/** What one memory graph run does (the graph's input decides; the graph never guesses). */
export const ControlState = {
  /** Deterministic: load the context document, recent entries and earlier summaries. No model. */
  START_SESSION: "start_session",
  /** Deterministic: the turn (the user's message and the answer) joins the session. No model. */
  PROCESS_MESSAGE: "process_message",
  /**
   * The same, then one model call records every turn since the last flush as entries
   * (`add_entry`) and rewrites the context document (`put_context`).
   */
  PROCESS_MESSAGE_AND_FLUSH: "process_message_and_flush",
  /** The flush's call for the turns not flushed yet (none: no call); the session's state is reset. */
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

/** The controls that may need the model: the only ones that run the memory graph. */
export type ModelControl = typeof ControlState.PROCESS_MESSAGE_AND_FLUSH | typeof ControlState.END_SESSION;

export function needsModel(control: ControlState): control is ModelControl {
  return control === ControlState.PROCESS_MESSAGE_AND_FLUSH || control === ControlState.END_SESSION;
}

/** One step of a graph run, decided from the last tool that ran. */
export type MemoryStep = "record" | "put-context" | "finish";

export function nextMemoryStep(lastTool: string | null): MemoryStep {
  if (lastTool === null) return "record";
  return lastTool === "add_entry" ? "put-context" : "finish";
}
