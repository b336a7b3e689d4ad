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
import { speakerMessage } from "./transcript.ts";

const KEY = "slack:T1:C2:1700.1";
const addEntry = (summary: string, raw: string, tags = ["topic"]) => ({
  name: "add_entry",
  args: { summary, raw_entry: raw, tags },
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
  const process = (
    count: number,
    role: "user" | "bot",
    text: string,
    control:
      | typeof ControlState.PROCESS_MESSAGE
      | typeof ControlState.PROCESS_MESSAGE_AND_FLUSH = ControlState.PROCESS_MESSAGE,
  ) => agent.invoke(KEY, { control, message: speakerMessage(role, text), role, messageCount: count });
  return { store, book, archive, model, agent, newAgent, process };
}

describe("memory agent control states", () => {
  let t: Awaited<ReturnType<typeof setUp>>;
  beforeEach(async () => {
    t = await setUp();
  });

  it("START_SESSION loads the context document, the 10 newest entries and earlier summaries without calling the model", async () => {
    await t.book.putContext(KEY, "Ana runs the Lisbon office.", 1);
    for (let i = 0; i < 12; i++)
      await t.book.addEntry(KEY, { role: "user", summary: `fact ${i}.`, raw: `raw ${i}`, tags: [], at: i });
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

  it("PROCESS_MESSAGE: the model records one message through add_entry (one call)", async () => {
    t.model.respondWithTools([
      addEntry("Ana wants a refund for invoice 42.", "refund invoice 42 please", ["billing"]),
    ]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    const state = await t.process(1, "user", "refund invoice 42 please");
    expect(t.model.callCount).toBe(1);
    expect(promptOf(t.model.calls[0])).toContain("user: refund invoice 42 please");
    expect(await t.book.recentEntries(KEY, 10)).toMatchObject([
      {
        seq: 0,
        role: "user",
        summary: "Ana wants a refund for invoice 42.",
        raw: "refund invoice 42 please",
        tags: ["billing"],
      },
    ]);
    expect(state.messageCount).toBe(1);
    expect(await t.book.context(KEY)).toBeUndefined();
  });

  it("PROCESS_MESSAGE_AND_FLUSH: add_entry, then put_context with the whole session", async () => {
    t.model
      .respondWithTools([addEntry("asked for refund", "refund please")])
      .respondWithTools([addEntry("refund done", "Refund issued.")])
      .respondWithTools([putContext("Ana got a refund for invoice 42.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process(1, "user", "refund please");
    const state = await t.process(2, "bot", "Refund issued.", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    expect(t.model.callCount).toBe(3);
    const synthesis = promptOf(t.model.calls[2]);
    expect(synthesis).toContain("CONTEXT_SYNTHESIS");
    expect(synthesis).toContain("user: refund please");
    expect(synthesis).toContain("bot: Refund issued.");
    expect((await t.book.context(KEY))?.content).toBe("Ana got a refund for invoice 42.");
    expect((await t.book.recentEntries(KEY, 10)).map((e) => e.role)).toEqual(["user", "bot"]);
    expect(state.messageCount).toBe(2);
  });

  it("END_SESSION writes the final context document and resets the session", async () => {
    t.model
      .respondWithTools([addEntry("hello", "hello")])
      .respondWithTools([putContext("Final: greetings only.")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process(1, "user", "hello");
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
    await t.process(1, "user", "First thing. Second thing. Third thing.");
    await t.process(2, "bot", "Noted.", ControlState.PROCESS_MESSAGE_AND_FLUSH);
    expect(await t.book.recentEntries(KEY, 10)).toMatchObject([
      {
        role: "user",
        summary: "First thing. Second thing.",
        raw: "First thing. Second thing. Third thing.",
        tags: ["unsummarized"],
      },
      { role: "bot", summary: "Noted.", tags: ["unsummarized"] },
    ]);
    expect((await t.book.context(KEY))?.content).toBe("Context after failures.");
  });

  it("keeps the counter in the checkpoint and the session in the store, not in the process", async () => {
    t.model.respondWithTools([addEntry("a", "a")]);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    await t.process(1, "user", "a");
    const another = t.newAgent();
    const state = await another.state(KEY);
    expect(state?.messageCount).toBe(1);
    expect(state?.startedAt).toBe(1_000_000);
    expect(await another.transcript(KEY, state?.messageCount ?? 0)).toEqual([{ role: "user", text: "a" }]);
    expect(await another.state("slack:T1:other")).toBeUndefined();
  });
});

describe("memory agent cost as a session grows", () => {
  it("prompts show the remembered context while it fits, then only the latest 30 earlier messages", async () => {
    const t = await setUp();
    await t.book.putContext(KEY, "Ana runs the Lisbon office.", 1);
    await t.agent.invoke(KEY, { control: ControlState.START_SESSION });
    const text = (n: number) => `msg-${String(n).padStart(2, "0")}`;
    for (let n = 1; n <= 31; n++) {
      t.model.respondWithTools([addEntry(`summary ${n}`, text(n))]);
      await t.process(n, n % 2 === 1 ? "user" : "bot", text(n));
    }
    const prompt = (n: number) => promptOf(t.model.calls[n - 1]);
    expect(prompt(2)).toContain(
      "system: ## What you remember about this conversation\n\nAna runs the Lisbon office.",
    );
    expect(prompt(2)).toContain("user: msg-01\n\nMessage to record:\nbot: msg-02");
    // The context and messages 1–29 are the 30 shown before message 30; before 31 it gives way.
    expect(prompt(30)).toContain("Ana runs the Lisbon office.");
    expect(prompt(31)).not.toContain("Ana runs the Lisbon office.");
    expect(prompt(31)).toContain("user: msg-01\nbot: msg-02");
    expect(prompt(31)).toContain("bot: msg-30\n\nMessage to record:\nuser: msg-31");
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
      const message = speakerMessage("user", `Message number ${String(n).padStart(3, "0")} of the session.`);
      await agent.invoke(KEY, {
        control: ControlState.PROCESS_MESSAGE,
        message,
        role: "user",
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
    const message = speakerMessage("user", "Ship it Friday. Not Monday.");
    await agent.invoke(KEY, {
      control: ControlState.PROCESS_MESSAGE_AND_FLUSH,
      message,
      role: "user",
      messageCount: 1,
    });
    expect(await book.recentEntries(KEY, 5)).toMatchObject([
      { summary: "Ship it Friday. Not Monday.", tags: ["unsummarized"] },
    ]);
    expect(await book.context(KEY)).toBeUndefined();
    expect(logger.lines.filter((line) => line.level !== "debug" && line.level !== "info")).toEqual([]);
  });
});
