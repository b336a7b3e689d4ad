import type { RunStep, RunStepsReader } from "@switchboard/core/records";
import type { RunStepView, TimelineStepSource } from "./run-timeline.ts";

/** What the timeline shows of one recorded step; memory work and commands are left out of runs. */
export function stepView(step: RunStep): RunStepView | undefined {
  switch (step.kind) {
    case "model_call":
      return {
        kind: "model",
        at: step.startedAt,
        agent: step.agent,
        model: step.model,
        latencyMs: step.latencyMs,
        inputTokens: step.inputTokens,
        outputTokens: step.outputTokens,
        ...(step.error ? { error: step.error } : {}),
      };
    case "tool_call":
      return {
        kind: "tool",
        at: step.startedAt,
        tool: step.tool,
        latencyMs: step.latencyMs,
        ...(step.agent ? { agent: step.agent } : {}),
        ...(step.error ? { error: step.error } : {}),
      };
    case "handoff":
      return { kind: "handoff", at: step.at, from: step.from, to: step.to };
    case "delivery":
      return step.error
        ? { kind: "error", at: step.at, message: `delivery failed: ${step.error}` }
        : { kind: "delivery", at: step.at };
    case "memory":
    case "command":
      return undefined;
  }
}

/** The run-steps log as the timeline's step source. */
export function stepsFromLog(reader: RunStepsReader): TimelineStepSource {
  return {
    async stepsOfRun(runId) {
      return (await reader.steps(runId)).map(stepView).filter((step) => step !== undefined);
    },
  };
}
