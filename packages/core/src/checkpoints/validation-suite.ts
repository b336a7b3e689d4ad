import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { type CheckpointSaverTestInitializer, validate } from "@langchain/langgraph-checkpoint-validation";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

/**
 * Registers LangGraph's checkpointer conformance suite in the calling test file.
 *
 * The suite calls `describe`, `it`, `expect`… as globals (it was written for Jest-style global
 * test functions), and this repository's Vitest config does not turn globals on, so we hand it
 * the functions of the Vitest instance that runs the file. Test files only.
 */
export function registerCheckpointerValidation<Saver extends BaseCheckpointSaver>(
  initializer: CheckpointSaverTestInitializer<Saver>,
): void {
  Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
  validate(initializer);
}
