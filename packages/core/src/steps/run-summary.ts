import type { RunSummary, StepDetail } from "./run-step.ts";

/** A run's totals after one more step: model calls add tokens, cost and their agent; tool calls count. */
export function summaryAfter(summary: RunSummary, step: StepDetail): RunSummary {
  switch (step.kind) {
    case "model_call":
      return {
        ...summary,
        agents: summary.agents.includes(step.agent) ? summary.agents : [...summary.agents, step.agent],
        modelCalls: summary.modelCalls + 1,
        inputTokens: summary.inputTokens + step.inputTokens,
        outputTokens: summary.outputTokens + step.outputTokens,
        cachedTokens: summary.cachedTokens + step.cachedTokens,
        costUsd: summary.costUsd + (step.costUsd ?? 0),
      };
    case "tool_call":
      return { ...summary, toolCalls: summary.toolCalls + 1 };
    default:
      return summary;
  }
}
