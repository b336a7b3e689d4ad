import { describe, expect, it } from "vitest";
import { TEST_BACKENDS, type TestBackend } from "./backends-test-support.ts";
import { conversationGraph, runTurns } from "./graph-test-support.ts";
import { DEFAULT_KEEP_CHECKPOINTS } from "./retention.ts";

/**
 * A conversation four times longer holds four times the messages. Storage that grows linearly
 * grows about 4x; LangGraph storing the whole history at every step grows about 16x.
 */
const THREAD = "slack:T1:C2:1700000000.000100";

/**
 * 100 graph turns with a growing history, measured at a quarter and at the end: linear storage
 * grows ×4 between the two, quadratic storage ×15. The full-length figures (50 and 500 turns) are
 * measured by `pnpm bench`. The cases mostly wait on their backend, so they run concurrently.
 */
const SHORT = 25;
const LONGER = 100;
const LONG = { timeout: 300_000 };

async function growthRatio(backend: TestBackend, keepCheckpoints: number, withSubgraph: boolean) {
  const opened = await backend.open(keepCheckpoints);
  try {
    const graph = conversationGraph(opened.saver, { withSubgraph });
    await runTurns(graph, THREAD, 0, SHORT);
    const atShort = await opened.storedBytes();
    const messages = await runTurns(graph, THREAD, SHORT, LONGER);
    expect(messages).toHaveLength(LONGER * 2);
    const atLonger = await opened.storedBytes();
    const window = Number.isFinite(keepCheckpoints) ? `newest ${keepCheckpoints}` : "everything";
    console.info(
      `${backend.name}, ${withSubgraph ? "subgraph" : "plain"} graph, keeping ${window}: ` +
        `${atShort} B after ${SHORT} turns, ${atLonger} B after ${LONGER} (x${(atLonger / atShort).toFixed(2)})`,
    );
    return atLonger / atShort;
  } finally {
    await opened.dispose();
  }
}

describe.concurrent.each(TEST_BACKENDS)("stored bytes per conversation on $name", (backend) => {
  it.each([
    { graph: "a plain graph", withSubgraph: false },
    { graph: "a graph whose agent is a subgraph", withSubgraph: true },
  ])("grow linearly with the default window, for $graph", LONG, async ({ withSubgraph }) => {
    expect(await growthRatio(backend, DEFAULT_KEEP_CHECKPOINTS, withSubgraph)).toBeLessThan(6);
  });

  // The same measurement with pruning off: proves the assertion above can fail.
  it("grow quadratically when every checkpoint is kept", LONG, async () => {
    expect(await growthRatio(backend, Number.POSITIVE_INFINITY, false)).toBeGreaterThan(12);
  });
});
