import type { RunnableConfig } from "@langchain/core/runnables";
import {
  type BaseCheckpointSaver,
  type ChannelVersions,
  type CheckpointMetadata,
  type CheckpointTuple,
  emptyCheckpoint,
  uuid6,
} from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { type OpenedTestBackend, TEST_BACKENDS } from "./backends-test-support.ts";

/** A history entry of fixed size, so storage should stay flat once the window is full. */
const entry = (step: number) => `${String(step).padStart(4, "0")} ${"m".repeat(400)}`;

interface Chain {
  ids: string[];
  last: RunnableConfig;
}

/**
 * Puts `count` checkpoints one after another the way the graph does: `messages` changes every
 * step, `persona` is written once at the first step and then only carried, and each checkpoint
 * gets one pending write.
 */
async function putChain(
  saver: BaseCheckpointSaver,
  start: RunnableConfig,
  count: number,
  metadataExtra: Partial<CheckpointMetadata> = {},
): Promise<Chain> {
  let config = start;
  let previous = (await saver.getTuple(start))?.checkpoint;
  const ids: string[] = [];
  for (let step = 0; step < count; step += 1) {
    const version = saver.getNextVersion(previous?.channel_versions.messages as number | undefined);
    const firstStep = previous === undefined;
    const checkpoint = {
      ...emptyCheckpoint(),
      id: uuid6(-3),
      channel_values: { messages: [entry(step)], persona: "a patient helper" },
      channel_versions: {
        messages: version,
        persona: firstStep ? version : previous!.channel_versions.persona!,
      },
    };
    const newVersions: ChannelVersions = firstStep
      ? { messages: version, persona: version }
      : { messages: version };
    config = await saver.put(
      config,
      checkpoint,
      { source: "loop", step, parents: {}, ...metadataExtra },
      newVersions,
    );
    await saver.putWrites(config, [["messages", `write ${step}`]], `task-${step}`);
    ids.push(checkpoint.id);
    previous = checkpoint;
  }
  return { ids, last: config };
}

async function listAll(saver: BaseCheckpointSaver, config: RunnableConfig): Promise<CheckpointTuple[]> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of saver.list(config)) tuples.push(tuple);
  return tuples;
}

const thread = (threadId: string, namespace = ""): RunnableConfig => ({
  configurable: { thread_id: threadId, checkpoint_ns: namespace },
});

describe.each(TEST_BACKENDS)("checkpoint retention on $name", (backend) => {
  let opened: OpenedTestBackend | undefined;
  const open = async (keep: number) => {
    opened = await backend.open(keep);
    return opened;
  };
  afterEach(async () => {
    await opened?.dispose();
    opened = undefined;
  });

  it("keeps the newest checkpoints with their writes and the values they carry over", async () => {
    const { saver } = await open(3);
    const { ids } = await putChain(saver, thread("slack:T1:C2:1700000000.000100"), 8);

    const kept = await listAll(saver, thread("slack:T1:C2:1700000000.000100"));
    expect(kept.map((tuple) => tuple.checkpoint.id)).toEqual(ids.slice(5).reverse());
    expect(kept.map((tuple) => tuple.pendingWrites)).toEqual(
      [7, 6, 5].map((step) => [[`task-${step}`, "messages", `write ${step}`]]),
    );
    // `persona` was stored once, at the first (now pruned) checkpoint: its value must survive.
    expect(kept[0]?.checkpoint.channel_values).toEqual({ messages: [entry(7)], persona: "a patient helper" });
    const pruned = await saver.getTuple({
      configurable: { ...thread("slack:T1:C2:1700000000.000100").configurable, checkpoint_id: ids[0] },
    });
    expect(pruned).toBeUndefined();
  });

  it("stops growing once the window is full, and grows without bound when told to keep everything", async () => {
    const bounded = await open(3);
    const first = await putChain(bounded.saver, thread("t-bounded"), 10);
    const afterTen = await bounded.storedBytes();
    await putChain(bounded.saver, first.last, 20);
    const afterThirty = await bounded.storedBytes();
    expect(afterThirty / afterTen).toBeLessThan(1.15);
    await bounded.dispose();

    const unbounded = await open(Number.POSITIVE_INFINITY);
    const chain = await putChain(unbounded.saver, thread("t-unbounded"), 10);
    const unboundedAfterTen = await unbounded.storedBytes();
    await putChain(unbounded.saver, chain.last, 20);
    expect((await unbounded.storedBytes()) / unboundedAfterTen).toBeGreaterThan(2.5);
    expect(await listAll(unbounded.saver, thread("t-unbounded"))).toHaveLength(30);
  });

  it("drops subgraph checkpoints once the root checkpoint that started them leaves the window", async () => {
    const { saver } = await open(2);
    let root = thread("t-subgraphs");
    const rootIds: string[] = [];
    for (let turn = 0; turn < 5; turn += 1) {
      const step = await putChain(saver, root, 1);
      root = step.last;
      rootIds.push(step.ids[0]!);
      await putChain(saver, thread("t-subgraphs", `agent:${turn}`), 2, { parents: { "": step.ids[0]! } });
    }

    const namespaces = (await listAll(saver, { configurable: { thread_id: "t-subgraphs" } })).map(
      (tuple) => tuple.config.configurable?.checkpoint_ns,
    );
    expect(namespaces.sort()).toEqual(["", "", "agent:3", "agent:3", "agent:4", "agent:4"]);
    expect(await listAll(saver, thread("t-subgraphs", "agent:0"))).toEqual([]);
  });

  it("leaves threads with delta channels whole: they rebuild state from ancestors", async () => {
    const { saver } = await open(2);
    await putChain(saver, thread("t-delta"), 5, { counters_since_delta_snapshot: { messages: [1, 1] } });
    expect(await listAll(saver, thread("t-delta"))).toHaveLength(5);
  });

  it("keeps other threads untouched", async () => {
    const { saver } = await open(2);
    await putChain(saver, thread("t-a"), 2);
    await putChain(saver, thread("t-b"), 6);
    expect(await listAll(saver, thread("t-a"))).toHaveLength(2);
    expect(await listAll(saver, thread("t-b"))).toHaveLength(2);
  });
});
