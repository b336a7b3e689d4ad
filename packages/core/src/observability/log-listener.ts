import type { Logger } from "../runtime/logger.ts";
import type { StepListener } from "../steps/step-recorder.ts";

/** Model-call and run lines with their latency, tokens and cost (the turn's context fields ride along). */
export function logListener(logger: Logger): StepListener {
  return {
    onStep(run, step) {
      if (step.kind === "model_call") {
        logger[step.error ? "warn" : "debug"]("model call", {
          runId: run.runId,
          agent: step.agent,
          model: step.model,
          latencyMs: step.latencyMs,
          inputTokens: step.inputTokens,
          outputTokens: step.outputTokens,
          cachedTokens: step.cachedTokens,
          costUsd: step.costUsd,
          finishReason: step.finishReason,
          error: step.error,
        });
      } else if (step.kind === "tool_call") {
        logger.debug("tool call", {
          runId: run.runId,
          tool: step.tool,
          latencyMs: step.latencyMs,
          outcome: step.outcome,
          error: step.error,
        });
      }
    },
    onRunFinished(summary) {
      logger.info("run finished", {
        conversationKey: summary.conversationKey,
        requestId: summary.requestId,
        runId: summary.runId,
        trigger: summary.trigger,
        status: summary.status,
        latencyMs: (summary.endedAt ?? summary.startedAt) - summary.startedAt,
        agents: summary.agents.join(","),
        modelCalls: summary.modelCalls,
        toolCalls: summary.toolCalls,
        inputTokens: summary.inputTokens,
        outputTokens: summary.outputTokens,
        costUsd: summary.costUsd,
        error: summary.error,
      });
    },
  };
}
