import { AIMessage, type ChatMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { beforeEach, describe, expect, it } from "vitest";
import { createMemoryLogger, silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import { archivedSession } from "./archive/archive-store.suite.ts";
import { KeyvArchiveStore } from "./archive/keyv-archive-store.ts";
import { ControlState } from "./control-state.ts";
import { MemoryAgent, memoryThreadOf } from "./memory-agent.ts";
import { MemoryBook } from "./memory-book.ts";
import { SessionStore } from "./session-store.ts";

const KEY = "slack:T1:C2:1700.1";
/** One add_entry call: item i summarizes turn i + 1 (a string alone: the user's message only). */
const addEntry = (...turns: ReadonlyArray<string | readonly [string, string, string[]?]>) => ({
  name: "add_entry",
  args: {
    entries: turns.map((turn, index) =>
      typeof turn === "string"
        ? { turn: index + 1, summary: turn, tags: ["topic"] }
        : { turn: index + 1, summary: turn[0], answer_summary: turn[1], tags: turn[2] ?? ["topic"] },
    ),
  },
});
const putContext = (content: string) => ({ name: "put_context", args: { content } });
const promptOf = (call: { messages: unknown[] } | undefined) =>
  String((call?.messages[0] as ChatMessage | undefined)?.content ?? "");

async function setUp() {
  const store = await openStore("memory://");
  const book = new MemoryBook(store);
  const archive = new KeyvArchiveStore(store);
  const model = fakeModel();
  const clock = { now: () => 1_000_000 };
  const checkpointer = new MemorySaver();
  const newAgent = () =>
    new MemoryAgent({
      checkpointer,
      model,
      book,
      archive,
      sessions: new SessionStore(store),
      recentEntries: 10,
      summariesInPrompt: 5,
      clock,
      logger: silentLogger,
    });
  const agent = newAgent();
  /** One turn: the user's words and the answer (empty: no answer). */
  const process = (
    user: string,
    answer: string,
    control:
      | typeof ControlState.PROCESS_MESSAGE
      | typeof ControlState.PROCESS_MESSAGE_AND_FLUSH = ControlState.PROCESS_MESSAGE,
  ) =>
    agent.invoke(KEY, {
      control,
      turn: [
        { role: "user" as const, text: user },
        { role: "bot" as const, text: answer },
      ].filter((line) => line.text !== ""),
    });
  return { store, book, archive, model, agent, newAgent, process, checkpointer };
}

describe("memory agent control states", () => {
  let t: Awaited<ReturnType<typeof setUp>>;
  beforeEach(async () => {
    t = await setUp();
  });

  it("START_SESSION loads the context document, the 10 newest entries and earlier summaries without calling the model", async () => {
    // The document was written at 1, before the archived session (500–1,500) and the entries after it.
    await t.book.putContext(KEY, "Ana runs the Lisbon office.", 1);
    for (let i = 0; i < 12; i++)
      await t.book.addEntry(KEY, {
        role: "user",
        summary: `fact ${i}.`,
        raw: `raw ${i}`,
        tags: [],
        at: 2_000 + i,
      });
    await t.archive.add(archivedSession(KEY, 500, { summary: "They planned the offsite." }));
    const state = await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    expect(t.model.callCount).toBe(0);
    expect(state.startedAt).toBe(1_000_000);
    expect(state.messageCount).toBe(0);
    const context = state.sessionContext ?? "";
    expect(context).toContain("Ana runs the Lisbon office.");
    expect(context).toContain("They planned the offsite.");
    expect(context).toContain("fact 2.");
    expect(context).toContain("fact 11.");
    expect(context).not.toContain("fact 1.");
    expect(await t.agent.transcript(KEY, 1)).toEqual([]);
  });

  it("PROCESS_MESSAGE joins the turn to the session without the model; the flush records every turn since the last one in one call", async () => {
    t.model.respondWithTools([
      addEntry(
        ["Ana wants a refund for invoice 42.", "The bot issued the refund.", ["billing"]],
        ["Ana thanked.", "Welcome."],
      ),
      putContext("Ana got a refund for invoice 42."),
    ]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    const first = await t.process("refund invoice 42 please", "Refund issued.");
    expect(t.model.callCount).toBe(0);
    expect(first.messageCount).toBe(2);
    expect(await t.book.entryCount(KEY)).toBe(0);
    const state = await t.process("thanks", "You're welcome.", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    expect(t.model.callCount).toBe(1);
    const prompt = promptOf(t.model.calls[0]);
    expect(prompt).toContain(
      "Turn 1:\nuser: refund invoice 42 please\nbot: Refund issued.\nTurn 2:\nuser: thanks\nbot: You're welcome.",
    );
    expect(prompt).toContain("ADD_ENTRY + CONTEXT_SYNTHESIS");
    expect(await t.book.recentEntries(KEY, 10)).toMatchObject([
      {
        seq: 0,
        role: "user",
        summary: "Ana wants a refund for invoice 42.",
        raw: "refund invoice 42 please",
        tags: ["billing"],
      },
      {
        seq: 1,
        role: "bot",
        summary: "The bot issued the refund.",
        raw: "Refund issued.",
        tags: ["billing"],
      },
      { seq: 2, role: "user", summary: "Ana thanked.", raw: "thanks" },
      { seq: 3, role: "bot", summary: "Welcome.", raw: "You're welcome." },
    ]);
    expect((await t.book.context(KEY))?.content).toBe("Ana got a refund for invoice 42.");
    expect(state.messageCount).toBe(4);
  });

  it("a turn the model's add_entry left out is still recorded, without a summary", async () => {
    t.model.respondWithTools([addEntry("first summarized"), putContext("Doc.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process("first", "one");
    await t.process("second", "two", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    expect(
      (await t.book.recentEntries(KEY, 10)).map((entry) => [entry.raw, entry.summary, entry.tags]),
    ).toEqual([
      ["first", "first summarized", ["topic"]],
      ["one", "first summarized", ["topic"]],
      ["second", "second", ["unsummarized"]],
      ["two", "two", ["unsummarized"]],
    ]);
  });

  it("a flush whose call left the document out asks for it in a second call", async () => {
    t.model.respondWithTools([addEntry("hello")]).respondWithTools([putContext("Greetings were exchanged.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process("hello", "hi", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    expect(t.model.callCount).toBe(2);
    expect(promptOf(t.model.calls[1])).toContain("Current operation: CONTEXT_SYNTHESIS");
    expect((await t.book.context(KEY))?.content).toBe("Greetings were exchanged.");
  });

  it("a flush is shown only the turns the document does not hold yet, and the document", async () => {
    t.model
      .respondWithTools([addEntry("one"), putContext("Doc after turn 1.")])
      .respondWithTools([addEntry("two", "three"), putContext("Doc after turn 3.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process("first question", "first answer", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    await t.process("second question", "second answer");
    await t.process("third question", "third answer", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    const flush = promptOf(t.model.calls[1]);
    expect(flush).toContain("Doc after turn 1.");
    expect(flush).toContain("Turn 1:\nuser: second question");
    expect(flush).toContain("Turn 2:\nuser: third question");
    expect(flush).not.toContain("first question");
    expect(await t.book.entryCount(KEY)).toBe(6);
  });

  it("END_SESSION records the turns not flushed yet with the final context document in one call, and resets the session", async () => {
    t.model.respondWithTools([addEntry("hello"), putContext("Final: greetings only.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process("hello", "");
    const state = await t.agent.invoke(KEY, { control: ControlState.END_SESSION });
    expect(t.model.callCount).toBe(1);
    expect((await t.book.context(KEY))?.content).toBe("Final: greetings only.");
    expect(await t.book.recentEntries(KEY, 5)).toMatchObject([
      { role: "user", summary: "hello", raw: "hello" },
    ]);
    expect(state).toMatchObject({ startedAt: null, messageCount: 0, sessionContext: null });
    expect(await t.agent.session(KEY)).toBeUndefined();
    expect(await t.agent.transcript(KEY, 1)).toEqual([]);
  });

  it("END_SESSION needs no model when nothing is new since the last flush (or nothing was said)", async () => {
    t.model.respondWithTools([addEntry("hello"), putContext("Doc.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process("hello", "hi", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    const state = await t.agent.invoke(KEY, { control: ControlState.END_SESSION });
    expect(t.model.callCount).toBe(1);
    expect(state.startedAt).toBeNull();
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.agent.invoke(KEY, { control: ControlState.END_SESSION });
    expect(t.model.callCount).toBe(1);
  });

  it("a failing model or one that skips its tool never loses a message; the document is still asked for", async () => {
    t.model
      .respond(new Error("model is down"))
      .respondWithTools([putContext("Context after a failure.")])
      .respond(new AIMessage("I would rather chat."))
      .respond(new AIMessage("Still chatting."));
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process(
      "First thing. Second thing. Third thing.",
      "Noted.",
      ControlState.PROCESS_MESSAGE_AND_FLUSH,
    );
    expect((await t.book.context(KEY))?.content).toBe("Context after a failure.");
    await t.process("More.", "Fine.", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    expect(t.model.callCount).toBe(4);
    expect(await t.book.recentEntries(KEY, 10)).toMatchObject([
      {
        role: "user",
        summary: "First thing. Second thing.",
        raw: "First thing. Second thing. Third thing.",
        tags: ["unsummarized"],
      },
      { role: "bot", summary: "Noted.", tags: ["unsummarized"] },
      { role: "user", raw: "More.", tags: ["unsummarized"] },
      { role: "bot", raw: "Fine.", tags: ["unsummarized"] },
    ]);
    // The model that skipped its tool leaves the document as it was.
    expect((await t.book.context(KEY))?.content).toBe("Context after a failure.");
    expect((await t.agent.session(KEY))?.recordedUpTo).toBe(4);
  });

  it("keeps the counter and the session in the store, not in the process", async () => {
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process("a", "");
    const another = t.newAgent();
    const state = await another.state(KEY);
    expect(state?.messageCount).toBe(1);
    expect(state?.startedAt).toBe(1_000_000);
    expect(await another.transcript(KEY, state?.messageCount ?? 0)).toEqual([{ role: "user", text: "a" }]);
    expect(await another.state("slack:T1:other")).toBeUndefined();
  });
});

describe("memory agent sessions from before the counter moved into the record", () => {
  it("carry on from the counter in the graph's checkpoint, with the messages so far counted as recorded", async () => {
    const t = await setUp();
    // What the earlier version left: a record without counters, 4 lines, the counter in the checkpoint.
    await t.store.namespace("memory-session-records").set(KEY, { startedAt: 500, context: "", digest: null });
    const lines = t.store.namespace("memory-session-lines");
    for (let n = 1; n <= 4; n++)
      await lines.set(`${KEY}#${n}`, { role: n % 2 === 1 ? "user" : "bot", text: `earlier ${n}` });
    await t.checkpointer.put(
      { configurable: { thread_id: memoryThreadOf(KEY), checkpoint_ns: "" } },
      { ...emptyCheckpoint(), id: uuid6(-3), channel_values: { messageCount: 4, flushedAt: 0 } },
      { source: "loop", step: 1, parents: {} },
    );
    t.model.respondWithTools([addEntry("new question"), putContext("Doc.")]);
    const state = await t.process("new question", "new answer", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    expect(state).toMatchObject({ messageCount: 6, startedAt: 500 });
    const prompt = promptOf(t.model.calls[0]);
    expect(prompt).toContain("Turn 1:\nuser: new question\nbot: new answer");
    expect(prompt).not.toContain("earlier");
    expect((await t.agent.transcript(KEY, 6)).map((line) => line.text)).toEqual([
      "earlier 1",
      "earlier 2",
      "earlier 3",
      "earlier 4",
      "new question",
      "new answer",
    ]);
  });
});

describe("memory agent cost as a session grows", () => {
  it("sends each remembered fact once: not as entries or a summary the context document already holds", async () => {
    const t = await setUp();
    await t.archive.add(archivedSession(KEY, 500, { summary: "They planned the offsite." }));
    await t.book.addEntry(KEY, { role: "user", summary: "offsite in May.", raw: "May", tags: [], at: 900 });
    await t.book.putContext(KEY, "The offsite is in May.", 1_600);
    await t.book.addEntry(KEY, { role: "user", summary: "budget is 5k.", raw: "5k", tags: [], at: 1_700 });
    const context = (await t.agent.invoke(KEY, { control: ControlState.START_SESSION })).sessionContext ?? "";
    expect(context).toContain("The offsite is in May.");
    expect(context).toContain("budget is 5k.");
    expect(context).not.toContain("offsite in May.");
    expect(context).not.toContain("They planned the offsite.");
  });

  it("model calls and prompts stay the same however long the session: one call per flush, only the turns since the last", async () => {
    const t = await setUp();
    await t.book.putContext(KEY, "Ana runs the Lisbon office.", 1);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    const text = (n: number) => `msg-${String(n).padStart(2, "0")}`;
    // Flushing every 3 turns (6 messages, the default): 30 turns, 10 calls.
    for (let turn = 1; turn <= 30; turn++) {
      const flush = turn % 3 === 0;
      if (flush) t.model.respondWithTools([addEntry("a", "b", "c"), putContext(`Doc after turn ${turn}.`)]);
      await t.process(
        text(turn * 2 - 1),
        text(turn * 2),
        flush ? ControlState.PROCESS_MESSAGE_AND_FLUSH : ControlState.PROCESS_MESSAGE,
      );
    }
    expect(t.model.callCount).toBe(10);
    const prompt = (n: number) => promptOf(t.model.calls[n - 1]);
    expect(prompt(10)).toContain("Doc after turn 27.");
    expect(prompt(10)).toContain("Turn 1:\nuser: msg-55\nbot: msg-56");
    expect(prompt(10)).not.toContain("msg-54");
    expect(prompt(10).length).toBeLessThan(prompt(2).length + 20);
    expect(await t.book.entryCount(KEY)).toBe(60);
  });

  it("a run's checkpoint is as small at the 60th message of a session as at the 2nd", async () => {
    const store = await openStore("memory://");
    const checkpointer = new MemorySaver();
    const agent = new MemoryAgent({
      checkpointer,
      model: undefined,
      book: new MemoryBook(store),
      archive: new KeyvArchiveStore(store),
      sessions: new SessionStore(store),
      recentEntries: 10,
      summariesInPrompt: 5,
      clock: { now: () => 1 },
      logger: silentLogger,
    });
    const checkpointChars = async () => {
      const tuple = await checkpointer.getTuple({ configurable: { thread_id: memoryThreadOf(KEY) } });
      return JSON.stringify(tuple?.checkpoint.channel_values).length;
    };
    await agent.invoke(KEY, { control: ControlState.START_SESSION });
    const sizes = new Map<number, number>();
    for (let n = 1; n <= 60; n++) {
      const text = `Message number ${String(n).padStart(3, "0")} of the session.`;
      await agent.invoke(KEY, {
        control: ControlState.PROCESS_MESSAGE_AND_FLUSH,
        turn: [{ role: "user", text }],
      });
      sizes.set(n, await checkpointChars());
    }
    // A few characters for the counter's digits, never a message's worth per message.
    expect(sizes.get(60)).toBeLessThanOrEqual((sizes.get(2) ?? 0) + 10);
    expect((await agent.transcript(KEY, 60)).map((line) => line.text)).toHaveLength(60);
  });
});

describe("memory agent without a model", () => {
  it("records entries extractively and keeps no context document, logging nothing as a failure", async () => {
    const store = await openStore("memory://");
    const book = new MemoryBook(store);
    const logger = createMemoryLogger();
    const agent = new MemoryAgent({
      checkpointer: new MemorySaver(),
      model: undefined,
      book,
      archive: new KeyvArchiveStore(store),
      sessions: new SessionStore(store),
      recentEntries: 10,
      summariesInPrompt: 5,
      clock: { now: () => 1 },
      logger,
    });
    await agent.invoke(KEY, { control: ControlState.START_SESSION });
    await agent.invoke(KEY, {
      control: ControlState.PROCESS_MESSAGE_AND_FLUSH,
      turn: [{ role: "user", text: "Ship it Friday. Not Monday." }],
    });
    expect(await book.recentEntries(KEY, 5)).toMatchObject([
      { summary: "Ship it Friday. Not Monday.", tags: ["unsummarized"] },
    ]);
    expect(await book.context(KEY)).toBeUndefined();
    expect(logger.lines.filter((line) => line.level !== "debug" && line.level !== "info")).toEqual([]);
  });
});
