import { afterEach, describe, expect, it } from "vitest";
import { type OpenedTestBackend, TEST_BACKENDS } from "./backends-test-support.ts";
import { conversationGraph, runTurns, text } from "./graph-test-support.ts";
import { DEFAULT_KEEP_CHECKPOINTS } from "./retention.ts";

describe.each(TEST_BACKENDS)("a restarted $name checkpointer", (backend) => {
  let opened: OpenedTestBackend | undefined;
  afterEach(async () => {
    await opened?.dispose();
    opened = undefined;
  });

  it.each([false, true])("returns the conversation's latest state (subgraph: %s)", async (withSubgraph) => {
    opened = await backend.open(DEFAULT_KEEP_CHECKPOINTS);
    const thread = "discord:G1:C2:T3";
    const before = await runTurns(conversationGraph(opened.saver, { withSubgraph }), thread, 0, 4);

    const restarted = conversationGraph(await opened.reopen(), { withSubgraph });
    const state = await restarted.getState({ configurable: { thread_id: thread } });
    expect(state.values.messages.map((message: { content: unknown }) => message.content)).toEqual(
      before.map((message) => message.content),
    );

    const after = await runTurns(restarted, thread, 4, 5);
    expect(after).toHaveLength(10);
    expect(after.at(-2)?.content).toBe(text("question", 4));
    expect(after.at(-1)?.content).toBe(text("answer", 9));
  });
});
