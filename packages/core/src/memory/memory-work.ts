import type { Callbacks } from "@langchain/core/callbacks/manager";

/** One turn's memory work being recorded; `finish` closes it with what it did. */
export interface MemoryWork {
  /** For the memory graph's runs: their model calls are the work's steps. */
  readonly callbacks: Callbacks;
  finish(outcome: { control: string; messages: number; latencyMs: number; error?: unknown }): void;
}

/** Where memory work is recorded (the run-steps log); memory knows nothing else about it. */
export interface MemoryWorkRecorder {
  begin(conversationKey: string, userId: string): MemoryWork;
}
