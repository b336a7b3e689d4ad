import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { openStore, silentLogger } from "@switchboard/core";
import { describe, expect, it } from "vitest";
import { SqliteSaver } from "../packages/core/src/checkpoints/sqlite-saver.ts";
import { tempDirectory } from "../packages/core/src/store/test-backends.ts";
import {
  lastHuman,
  MEMORY_TEST_KEY,
  MINUTE,
  manualClock,
  operations,
  scriptedMemoryModel,
  scriptedTeamModel,
  startMemoryHarness,
} from "./support/memory-harness.ts";

describe("memory across a restart (SQLite)", () => {
  it("loses nothing mid-session: entries, counter and context survive new instances over the same file", async () => {
    const directory = await tempDirectory();
    const path = join(directory.path, "switchboard.db");
    const url = `sqlite://${path}`;
    const clock = manualClock();
    const open = async () => {
      const store = await openStore(url, { logger: silentLogger });
      const checkpointer = new SqliteSaver({ path });
      const memoryModel = scriptedMemoryModel();
      const teamModel = scriptedTeamModel((m) => `re: ${lastHuman(m)}`);
      const h = await startMemoryHarness({
        store,
        storeUrl: url,
        checkpointer,
        clock,
        teamModel,
        memoryModel,
        config: { flushEvery: 6 },
      });
      const close = async () => {
        await h.stop();
        await checkpointer.close();
        await store.close();
      };
      return { h, memoryModel, teamModel, close };
    };
    const first = await open();
    await first.h.memory.book.putContext(MEMORY_TEST_KEY, "Ana prefers morning meetings.", clock.now());
    await first.h.say("one");
    await first.h.say("two");
    await first.close();
    // Two turns join the session; neither reaches a flush, so no model call yet.
    expect(operations(first.memoryModel)).toEqual([]);

    const second = await open();
    expect((await second.h.memory.agent.state(MEMORY_TEST_KEY))?.messageCount).toBe(4);
    await second.h.say("three");
    await second.h.settle();
    // Messages 5 and 6: the counter carried on, so the turn reaching the 6th flushed: one call
    // recorded the turns from before the restart too.
    expect(operations(second.memoryModel)).toEqual(["add_entry+put_context"]);
    expect(String(second.memoryModel.calls[0]?.messages[0]?.content)).toContain(
      "Turn 1:\nuser: one\nbot: re: one\nTurn 2:\nuser: two\nbot: re: two\nTurn 3:\nuser: three",
    );
    expect(await second.h.memory.book.entryCount(MEMORY_TEST_KEY)).toBe(6);
    // The session's context came from its record: loaded before the restart, unchanged by the flush since.
    expect(await second.h.memory.contextFor(MEMORY_TEST_KEY)).toContain("Ana prefers morning meetings.");
    expect((await second.h.memory.book.context(MEMORY_TEST_KEY))?.content).toContain("weekly numbers");
    expect(
      second.teamModel.calls[0]?.messages.filter((m) => HumanMessage.isInstance(m)).map((m) => m.content),
    ).toEqual(["one", "two", "three"]);

    clock.advance(31 * MINUTE);
    const [archived] = await second.h.memory.sweeper.sweep();
    expect(archived?.transcript.map((line) => line.text)).toEqual([
      "one",
      "re: one",
      "two",
      "re: two",
      "three",
      "re: three",
    ]);
    await second.close();
    await directory.remove();
  });
});
