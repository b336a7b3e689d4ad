import { afterEach, describe, expect, it } from "vitest";
import { type OpenedTestBackend, TEST_BACKENDS } from "./backends-test-support.ts";
import { conversationGraph, runTurns } from "./graph-test-support.ts";
import { DEFAULT_KEEP_CHECKPOINTS } from "./retention.ts";

/**
 * A conversation four times longer holds four times the messages. Storage that grows linearly
 * grows about 4x; LangGraph storing the whole history at every step grows about 16x.
 */
const THREAD = "slack:T1:C2:1700000000.000100";

/** 250 graph turns with a growing history: seconds on an idle machine, more under a parallel run. */
const LONG = { timeout: 240_000 };

async function bytesAt50And200(opened: OpenedTestBackend, withSubgraph: boolean) {
  const graph = conversationGraph(opened.saver, { withSubgraph });
  await runTurns(graph, THREAD, 0, 50);
  const at50 = await opened.storedBytes();
  const messages = await runTurns(graph, THREAD, 50, 200);
  expect(messages).toHaveLength(400);
  const at200 = await opened.storedBytes();
  return { at50, at200, ratio: at200 / at50 };
}

describe.each(TEST_BACKENDS)("stored bytes per conversation on $name", (backend) => {
  let opened: OpenedTestBackend | undefined;
  afterEach(async () => {
    await opened?.dispose();
    opened = undefined;
  });

  it.each([
    { graph: "a plain graph", withSubgraph: false },
    { graph: "a graph whose agent is a subgraph", withSubgraph: true },
  ])("grow linearly with the default window, for $graph", LONG, async ({ withSubgraph }) => {
    opened = await backend.open(DEFAULT_KEEP_CHECKPOINTS);
    const { at50, at200, ratio } = await bytesAt50And200(opened, withSubgraph);
    console.info(
      `${backend.name} ${withSubgraph ? "subgraph" : "plain"} pruned: ${at50} B @50, ${at200} B @200`,
    );
    expect(ratio).toBeLessThan(6);
  });

  // The same measurement with pruning off: proves the assertion above can fail.
  it("grow quadratically when every checkpoint is kept", LONG, async () => {
    opened = await backend.open(Number.POSITIVE_INFINITY);
    const { at50, at200, ratio } = await bytesAt50And200(opened, false);
    console.info(`${backend.name} plain unpruned: ${at50} B @50, ${at200} B @200`);
    expect(ratio).toBeGreaterThan(12);
  });
});
