import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import { tempDirectory } from "../store/test-backends.ts";
import type { Store } from "../store/types.ts";
import { createMemory, type Memory } from "./create-memory.ts";

const KEY = "slack:T1:C2:1700.1";

/** Memory without a model (extractive), on the embedded store with its FTS5 archive, attached to a history that records clearing. */
async function setUp() {
  const directory = await tempDirectory();
  const url = `sqlite://${join(directory.path, "m.db")}`;
  const store = await openStore(url, { logger: silentLogger });
  let now = Date.UTC(2026, 10, 25, 9);
  const memory = createMemory({
    store,
    storeUrl: url,
    checkpointer: new MemorySaver(),
    config: { flushEvery: 2 },
    clock: { now: () => now },
  });
  const cleared: string[] = [];
  memory.attach({
    conversationState: async () => ({ messages: [] as BaseMessage[] }),
    replaceHistory: async (key, messages) => {
      if (messages.length === 0) cleared.push(key);
    },
  });
  const conversation = { platform: "slack", path: ["T1", "C2", "1700.1"] };
  const say = async (text: string) => {
    now += 60_000;
    memory.observer.afterDelivery?.(
      {
        key: KEY,
        conversation,
        workId: `w${now}`,
        text,
        message: {
          id: `m${now}`,
          conversation,
          author: { id: "U1", isBot: false, isSelf: false },
          text,
          isDirect: false,
          mentionsBot: true,
          isEdit: false,
          sentAt: now,
        },
        signal: new AbortController().signal,
      },
      { text: `About ${text}: noted.` },
    );
    await memory.idle();
  };
  return { store, memory, say, cleared, remove: directory.remove };
}

describe("memory's part of /new and /reset", () => {
  let opened: { store: Store; memory: Memory; remove(): Promise<void> } | undefined;
  afterEach(async () => {
    await opened?.memory.close();
    await opened?.store.close();
    await opened?.remove();
  });

  it("/reset archives the live session, searchable, and leaves it out of later prompts", async () => {
    const setup = await setUp();
    opened = setup;
    await setup.say("the walnut budget is 40k");
    await setup.say("and the venue");
    expect(await setup.memory.archive.count(KEY)).toBe(0);
    const said = await setup.memory.freshStart(KEY, "reset");
    expect(said.join(" ")).toMatch(/archived \(4 messages\) and no longer in my prompts here/);
    expect(setup.cleared).toEqual([KEY]);
    const context = (await setup.memory.contextFor(KEY)) ?? "";
    expect(context).not.toContain("walnut");
    expect(context).toContain("This conversation was reset on 2026-11-25");
    const [hit] = await setup.memory.archive.search({ text: "walnut", conversationKey: KEY, limit: 5 });
    expect(hit?.session.reason).toBe("requested");
  });

  it("/new archives and keeps what memory knows in the prompt", async () => {
    const setup = await setUp();
    opened = setup;
    await setup.say("the walnut budget is 40k");
    expect((await setup.memory.freshStart(KEY, "new")).join(" ")).toContain("its summary stays");
    const context = (await setup.memory.contextFor(KEY)) ?? "";
    expect(context).toContain("walnut");
    expect(await setup.memory.archive.count(KEY)).toBe(1);
  });

  it("says nothing and writes nothing where memory knows nothing", async () => {
    const setup = await setUp();
    opened = setup;
    expect(await setup.memory.freshStart(KEY, "reset")).toEqual([]);
    expect(await setup.memory.book.context(KEY)).toBeUndefined();
    expect(await setup.memory.contextFor(KEY)).toBeUndefined();
  });
});
