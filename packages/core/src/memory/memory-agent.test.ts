import { AIMessage, type ChatMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
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
const addEntry = (summary: string, answerSummary?: string, tags = ["topic"]) => ({
  name: "add_entry",
  args: { summary, ...(answerSummary ? { answer_summary: answerSummary } : {}), tags },
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
  /** One turn: the user's words and the answer (empty: no answer), ending at message `count`. */
  const process = (
    count: number,
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
      messageCount: count,
    });
  return { store, book, archive, model, agent, newAgent, process };
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

  it("PROCESS_MESSAGE: one model call records the whole turn through add_entry", async () => {
    t.model.respondWithTools([
      addEntry("Ana wants a refund for invoice 42.", "The bot issued the refund.", ["billing"]),
    ]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    const state = await t.process(2, "refund invoice 42 please", "Refund issued.");
    expect(t.model.callCount).toBe(1);
    expect(promptOf(t.model.calls[0])).toContain(
      "Turn to record:\nuser: refund invoice 42 please\nbot: Refund issued.",
    );
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
    ]);
    expect(state.messageCount).toBe(2);
    expect(await t.book.context(KEY)).toBeUndefined();
  });

  it("PROCESS_MESSAGE_AND_FLUSH: the same one call also rewrites the context document", async () => {
    t.model
      .respondWithTools([addEntry("asked for refund", "refund promised")])
      .respondWithTools([addEntry("thanks", "welcome"), putContext("Ana got a refund for invoice 42.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process(2, "refund please", "Refund issued.");
    const state = await t.process(4, "thanks", "You're welcome.", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    expect(t.model.callCount).toBe(2);
    const flush = promptOf(t.model.calls[1]);
    expect(flush).toContain("CONTEXT_SYNTHESIS");
    expect(flush).toContain("user: refund please\nbot: Refund issued.");
    expect((await t.book.context(KEY))?.content).toBe("Ana got a refund for invoice 42.");
    expect((await t.book.recentEntries(KEY, 10)).map((e) => e.role)).toEqual(["user", "bot", "user", "bot"]);
    expect(state.messageCount).toBe(4);
  });

  it("a flush whose call left the document out asks for it in a second call", async () => {
    t.model
      .respondWithTools([addEntry("hello", "hi")])
      .respondWithTools([putContext("Greetings were exchanged.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process(2, "hello", "hi", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    expect(t.model.callCount).toBe(2);
    expect((await t.book.context(KEY))?.content).toBe("Greetings were exchanged.");
  });

  it("a context rewrite is shown only the messages the document does not hold yet", async () => {
    t.model
      .respondWithTools([addEntry("one", "one"), putContext("Doc after turn 1.")])
      .respondWithTools([addEntry("two", "two")])
      .respondWithTools([addEntry("three", "three"), putContext("Doc after turn 3.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process(2, "first question", "first answer", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    await t.process(4, "second question", "second answer");
    await t.process(6, "third question", "third answer", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    const flush = promptOf(t.model.calls[2]);
    expect(flush).toContain("Doc after turn 1.");
    expect(flush).toContain("user: second question");
    expect(flush).not.toContain("first question");
  });

  it("END_SESSION writes the final context document and resets the session", async () => {
    t.model
      .respondWithTools([addEntry("hello", "hello")])
      .respondWithTools([putContext("Final: greetings only.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process(1, "hello", "");
    const state = await t.agent.invoke(KEY, { control: ControlState.END_SESSION });
    expect((await t.book.context(KEY))?.content).toBe("Final: greetings only.");
    expect(state).toMatchObject({ startedAt: null, messageCount: 0, sessionContext: null });
    expect(await t.agent.session(KEY)).toBeUndefined();
    expect(await t.agent.transcript(KEY, 1)).toEqual([]);
  });

  it("END_SESSION of a session with no messages needs no model", async () => {
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    const state = await t.agent.invoke(KEY, { control: ControlState.END_SESSION });
    expect(t.model.callCount).toBe(0);
    expect(state.startedAt).toBeNull();
  });

  it("a failing model or one that skips its tool never loses the message; a flush still runs", async () => {
    t.model
      .respond(new Error("model is down"))
      .respond(new AIMessage("I would rather chat."))
      .respondWithTools([putContext("Context after failures.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process(2, "First thing. Second thing. Third thing.", "Noted.");
    await t.process(4, "More.", "Fine.", ControlState.PROCESS_MESSAGE_AND_FLUSH);
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
    expect((await t.book.context(KEY))?.content).toBe("Context after failures.");
  });

  it("keeps the counter in the checkpoint and the session in the store, not in the process", async () => {
    t.model.respondWithTools([addEntry("a")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process(1, "a", "");
    const another = t.newAgent();
    const state = await another.state(KEY);
    expect(state?.messageCount).toBe(1);
    expect(state?.startedAt).toBe(1_000_000);
    expect(await another.transcript(KEY, state?.messageCount ?? 0)).toEqual([{ role: "user", text: "a" }]);
    expect(await another.state("slack:T1:other")).toBeUndefined();
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

  it("prompts stay the same size: the 2 messages before the turn, no remembered context", async () => {
    const t = await setUp();
    await t.book.putContext(KEY, "Ana runs the Lisbon office.", 1);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    const text = (n: number) => `msg-${String(n).padStart(2, "0")}`;
    for (let turn = 1; turn <= 15; turn++) {
      t.model.respondWithTools([addEntry(`summary ${turn}`)]);
      await t.process(turn * 2, text(turn * 2 - 1), text(turn * 2));
    }
    const prompt = (n: number) => promptOf(t.model.calls[n - 1]);
    expect(prompt(15)).not.toContain("Ana runs the Lisbon office.");
    expect(prompt(15)).toContain("user: msg-27\nbot: msg-28\n\nTurn to record:\nuser: msg-29\nbot: msg-30");
    expect(prompt(15)).not.toContain("msg-26");
    expect(prompt(15).length).toBeLessThan(prompt(3).length + 20);
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
        control: ControlState.PROCESS_MESSAGE,
        turn: [{ role: "user", text }],
        messageCount: n,
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
      messageCount: 1,
    });
    expect(await book.recentEntries(KEY, 5)).toMatchObject([
      { summary: "Ship it Friday. Not Monday.", tags: ["unsummarized"] },
    ]);
    expect(await book.context(KEY)).toBeUndefined();
    expect(logger.lines.filter((line) => line.level !== "debug" && line.level !== "info")).toEqual([]);
  });
});
