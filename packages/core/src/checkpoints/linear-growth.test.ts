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
 * 250 graph turns with a growing history: seconds on an idle machine, minutes when the machine is
 * busy. The cases mostly wait on their backend, so they run concurrently.
 */
const LONG = { timeout: 300_000 };

async function bytesAt50And200(backend: TestBackend, keepCheckpoints: number, withSubgraph: boolean) {
  const opened = await backend.open(keepCheckpoints);
  try {
    const graph = conversationGraph(opened.saver, { withSubgraph });
    await runTurns(graph, THREAD, 0, 50);
    const at50 = await opened.storedBytes();
    const messages = await runTurns(graph, THREAD, 50, 200);
    expect(messages).toHaveLength(400);
    const at200 = await opened.storedBytes();
    const window = Number.isFinite(keepCheckpoints) ? `newest ${keepCheckpoints}` : "everything";
    console.info(
      `${backend.name}, ${withSubgraph ? "subgraph" : "plain"} graph, keeping ${window}: ` +
        `${at50} B after 50 turns, ${at200} B after 200 (x${(at200 / at50).toFixed(2)})`,
    );
    return at200 / at50;
  } finally {
    await opened.dispose();
  }
}

describe.concurrent.each(TEST_BACKENDS)("stored bytes per conversation on $name", (backend) => {
  it.each([
    { graph: "a plain graph", withSubgraph: false },
    { graph: "a graph whose agent is a subgraph", withSubgraph: true },
  ])("grow linearly with the default window, for $graph", LONG, async ({ withSubgraph }) => {
    expect(await bytesAt50And200(backend, DEFAULT_KEEP_CHECKPOINTS, withSubgraph)).toBeLessThan(6);
  });

  // The same measurement with pruning off: proves the assertion above can fail.
  it("grow quadratically when every checkpoint is kept", LONG, async () => {
    expect(await bytesAt50And200(backend, Number.POSITIVE_INFINITY, false)).toBeGreaterThan(12);
  });
});
