import type { RunnableConfig } from "@langchain/core/runnables";
import { type CheckpointTuple, MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.ts";
import { ControlState } from "./control-state.ts";
import { createMemory } from "./create-memory.ts";

const KEY = "discord:G1:C2:T3";

/** Counts checkpoint reads: the team's every model call must not cost one. */
class CountingSaver extends MemorySaver {
  reads = 0;
  override getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    this.reads += 1;
    return super.getTuple(config);
  }
}

async function setUp() {
  const store = await openStore("memory://");
  const checkpointer = new CountingSaver();
  const memory = createMemory({ store, storeUrl: "memory://", checkpointer, clock: { now: () => 5_000 } });
  return { store, checkpointer, memory };
}

describe("createMemory contextFor", () => {
  it("gives a live session's context and digest from its record, without reading the checkpoint", async () => {
    const { store, checkpointer, memory } = await setUp();
    await memory.book.putContext(KEY, "Ana prefers morning meetings.", 1);
    await memory.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await memory.book.putContext(KEY, "Rewritten by a flush since.", 2);
    await memory.agent.setDigest(KEY, "They compared three venues.");

    const readsBefore = checkpointer.reads;
    const context = await memory.contextFor(KEY);
    expect(checkpointer.reads).toBe(readsBefore);
    // The context the session started with (stable prompts), and what compaction condensed.
    expect(context).toContain("Ana prefers morning meetings.");
    expect(context).not.toContain("Rewritten by a flush since.");
    expect(context).toContain("## Earlier in this session (condensed)\nThey compared three venues.");
    await memory.close();
    await store.close();
  });

  it("with no live session, gives what the next session would load; nothing when nothing is remembered", async () => {
    const { store, memory } = await setUp();
    expect(await memory.contextFor(KEY)).toBeUndefined();
    await memory.book.putContext(KEY, "Ana prefers morning meetings.", 1);
    expect(await memory.contextFor(KEY)).toContain("Ana prefers morning meetings.");
    await memory.close();
    await store.close();
  });

  it("gives nothing when memory is disabled", async () => {
    const store = await openStore("memory://");
    const memory = createMemory({
      store,
      storeUrl: "memory://",
      checkpointer: new MemorySaver(),
      config: { enabled: false },
    });
    await memory.book.putContext(KEY, "Ana prefers morning meetings.", 1);
    expect(await memory.contextFor(KEY)).toBeUndefined();
    await memory.close();
    await store.close();
  });
});
