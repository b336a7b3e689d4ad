import type { Logger } from "../runtime/logger.ts";
import type { StepListener } from "../steps/step-recorder.ts";
import type { UsageBook } from "./usage-book.ts";

/** Rolls every recorded model call up into the usage book (per conversation, user, agent, model, day). */
export function usageListener(book: UsageBook, logger: Logger, now: () => number): StepListener {
  return {
    onStep(run, step) {
      if (step.kind !== "model_call") return;
      book
        .record({
          at: now(),
          conversationKey: run.conversationKey,
          ...(run.userId ? { userId: run.userId } : {}),
          agent: step.agent,
          model: step.model,
          inputTokens: step.inputTokens,
          outputTokens: step.outputTokens,
          cachedTokens: step.cachedTokens,
          costUsd: step.costUsd,
        })
        .catch((error: unknown) =>
          logger.warn("could not record usage", { key: run.conversationKey, error }),
        );
    },
  };
}
