import type { StepSink } from "../steps/step-sink.ts";

/** One turn's memory work being recorded; `finish` closes it with what it did. */
export interface MemoryWork {
  /** For the memory graph's runs and summaries: their model and tool calls are the work's steps. */
  readonly steps: StepSink;
  finish(outcome: {
    control: string;
    messages: number;
    latencyMs: number;
    error?: unknown;
    /**
     * The turn only joined its session (most turns): with no model or tool call and no failure it is
     * not recorded as a run of its own — every turn would list one, with nothing in it to read.
     */
    routine?: boolean;
  }): void;
}

/** Where memory work is recorded (the run-steps log); memory knows nothing else about it. */
export interface MemoryWorkRecorder {
  begin(conversationKey: string, userId: string): MemoryWork;
}

/** The agent memory's model and tool calls are recorded as, whichever graph node makes them. */
export const MEMORY_AGENT = "memory";
