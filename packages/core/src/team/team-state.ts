import { Annotation, MessagesAnnotation } from "@langchain/langgraph";

/** Counters that guard one turn against runaway loops; reset by every turn's input. */
export interface TurnCounters {
  readonly modelCalls: number;
  /** The tool called in the current streak of identical calls, and how many times in a row. */
  readonly streakTool: string | null;
  readonly streakLength: number;
}

export const FRESH_TURN: TurnCounters = { modelCalls: 0, streakTool: null, streakLength: 0 };

const lastValue = <T>(initial: () => T) =>
  Annotation<T>({ reducer: (_previous, next) => next, default: initial });

export const TeamState = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** The specialist holding the conversation; null = the supervisor. Mirrors the ActiveAgentStore. */
  activeAgent: lastValue<string | null>(() => null),
  /** The agent whose message ends the turn. */
  answeredBy: lastValue<string | null>(() => null),
  turn: lastValue<TurnCounters>(() => FRESH_TURN),
  /** The run that last gave this state its input: a re-run of the same run continues its checkpoint. */
  runId: lastValue<string | null>(() => null),
  /** A tool that ends the run when called (`returnDirect`, e.g. find_tools): a follow-up run continues. */
  stoppedBy: lastValue<string | null>(() => null),
});

export type TeamStateValue = typeof TeamState.State;
export type TeamStateUpdate = typeof TeamState.Update;
