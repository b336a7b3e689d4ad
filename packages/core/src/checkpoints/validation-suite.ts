import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import {
  type CheckpointSaverTestInitializer,
  deltaChannelHistoryTests,
  validate,
} from "@langchain/langgraph-checkpoint-validation";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MIN_KEEP_CHECKPOINTS } from "./retention.ts";

/**
 * Registers LangGraph's checkpointer conformance suite in the calling test file, twice:
 *
 * - keeping every checkpoint: the whole suite, plus the delta-channel cases that are opt-in
 *   upstream (our savers must serve graphs that use delta channels);
 * - keeping the smallest window, so that pruning runs inside the suite: the whole suite, without
 *   the delta-channel cases. Those build delta histories whose metadata lack the
 *   `counters_since_delta_snapshot` that LangGraph writes on such threads, which is how the
 *   savers know to leave a thread whole; pruning.test.ts covers that rule.
 *
 * The suite calls `describe`, `it`, `expect`… as globals (it was written for Jest-style global
 * test functions), and this repository's Vitest config does not turn globals on, so we hand it
 * the functions of the Vitest instance that runs the file. Test files only.
 */
export function registerCheckpointerValidation<Saver extends BaseCheckpointSaver>(
  name: string,
  initializer: (keepCheckpoints: number) => Omit<CheckpointSaverTestInitializer<Saver>, "checkpointerName">,
): void {
  Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
  const keepingAll = {
    checkpointerName: `${name} keeping every checkpoint`,
    ...initializer(Number.POSITIVE_INFINITY),
  };
  validate(keepingAll);
  deltaChannelHistoryTests(keepingAll);
  validate({
    checkpointerName: `${name} keeping ${MIN_KEEP_CHECKPOINTS}`,
    ...initializer(MIN_KEEP_CHECKPOINTS),
  });
}
