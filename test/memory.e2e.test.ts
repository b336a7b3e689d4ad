import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { openStore, type Store } from "@switchboard/core";
import { extractiveSummary } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  lastHuman,
  MEMORY_TEST_KEY,
  type MemoryOperation,
  MINUTE,
  manualClock,
  operations,
  scriptedMemoryModel,
  scriptedTeamModel,
  startMemoryHarness,
  toolCall,
} from "./support/memory-harness.ts";

const systemOf = (call: { messages: BaseMessage[] } | undefined) => String(call?.messages[0]?.content ?? "");

describe("memory agent end to end", () => {
  let store: Store;
  let clock: ReturnType<typeof manualClock>;
  beforeEach(async () => {
    store = await openStore("memory://");
    clock = manualClock();
  });
  afterEach(async () => {
    await store.close();
  });
  const start = (
    options: Omit<Parameters<typeof startMemoryHarness>[0], "store" | "storeUrl" | "checkpointer" | "clock">,
  ) =>
    startMemoryHarness({ store, storeUrl: "memory://", checkpointer: new MemorySaver(), clock, ...options });

  it("memory work starts only after the reply was delivered", async () => {
    const events: string[] = [];
    const memoryModel = scriptedMemoryModel({ onCall: (operation) => events.push(`memory: ${operation}`) });
    const teamModel = scriptedTeamModel(() => {
      events.push("team model");
      return "Hello Ana.";
    });
    // Two messages a flush: the one turn's memory work is a model call.
    const h = await start({ teamModel, memoryModel, events, config: { flushEvery: 2 } });
    await h.say("hi there");
    await h.settle();
    expect(events).toEqual([
      "team model",
      expect.stringMatching(/^delivered: .*Hello Ana\.$/),
      "memory: add_entry+put_context",
    ]);
    await h.stop();
  });

  it("records the turns since the last flush and rewrites the context document in one call every N messages", async () => {
    const memoryModel = scriptedMemoryModel();
    const h = await start({
      teamModel: scriptedTeamModel((m) => `re: ${lastHuman(m)}`),
      memoryModel,
      config: { flushEvery: 4 },
    });
    for (const text of ["one", "two", "three", "four"]) await h.say(text);
    await h.settle();
    const flush: MemoryOperation = "add_entry+put_context";
    expect(operations(memoryModel)).toEqual([flush, flush]);
    expect(String(memoryModel.calls[1]?.messages[0]?.content)).toContain(
      "Turn 1:\nuser: three\nbot: re: three\nTurn 2:\nuser: four\nbot: re: four",
    );
    expect(await h.memory.book.entryCount(MEMORY_TEST_KEY)).toBe(8);
    expect((await h.memory.agent.state(MEMORY_TEST_KEY))?.messageCount).toBe(8);
    expect((await h.memory.book.recentEntries(MEMORY_TEST_KEY, 2)).map((e) => [e.role, e.raw])).toEqual([
      ["user", "four"],
      ["bot", "re: four"],
    ]);
    await h.stop();
  });

  it("a session of 10 turns on the defaults costs 5 memory model calls, archiving included, each message sent once", async () => {
    const memoryModel = scriptedMemoryModel();
    const h = await start({ teamModel: scriptedTeamModel((m) => `re: ${lastHuman(m)}`), memoryModel });
    const said = Array.from({ length: 10 }, (_, i) => `question number ${i + 1}`);
    for (const text of said) {
      await h.say(text);
      await h.settle();
    }
    clock.advance(31 * MINUTE);
    expect(await h.memory.sweeper.sweep()).toHaveLength(1);
    // Flushes at messages 6, 12 and 18, the pending turn when archiving, and the session's summary.
    const flush: MemoryOperation = "add_entry+put_context";
    expect(operations(memoryModel)).toEqual([flush, flush, flush, flush, "summary"]);
    const prompts = memoryModel.calls.map((call) => String(call.messages[0]?.content ?? ""));
    for (const text of said)
      expect(prompts.filter((prompt) => prompt.includes(`user: ${text}\n`)).length).toBe(1);
    // The summary is written from the entries, not the transcript.
    expect(prompts[4]).toContain("user: Noted: question number 1");
    expect(await h.memory.book.entryCount(MEMORY_TEST_KEY)).toBe(20);
    await h.stop();
  });

  it("archives an idle session, clears the live history, and the next session carries the summary and can search it", async () => {
    const memoryModel = scriptedMemoryModel({
      summary: "Ana asked about invoice 42; the bot promised a refund.",
    });
    const teamModel = scriptedTeamModel((messages) => {
      const last = messages.at(-1);
      if (last && ToolMessage.isInstance(last)) return `From memory: ${String(last.content)}`;
      if (lastHuman(messages) === "what did we say about the invoice?")
        return toolCall("search_memory", { query: "invoice refund" });
      return `re: ${lastHuman(messages)}`;
    });
    const h = await start({ teamModel, memoryModel, supervisorTools: ["search_memory"] });
    await h.say("my invoice 42 is wrong");
    await h.say("please refund it");
    await h.settle();
    const startedAt = (await h.memory.agent.state(MEMORY_TEST_KEY))?.startedAt;

    clock.advance(29 * MINUTE);
    expect(await h.memory.sweeper.sweep()).toEqual([]);
    clock.advance(2 * MINUTE);
    const [archived] = await h.memory.sweeper.sweep();
    expect(archived).toMatchObject({
      conversationKey: MEMORY_TEST_KEY,
      summary: "Ana asked about invoice 42; the bot promised a refund.",
      messageCount: 4,
      participants: ["ana"],
      reason: "idle",
      startedAt,
      transcript: [
        { role: "user", text: "my invoice 42 is wrong" },
        { role: "bot", text: "re: my invoice 42 is wrong" },
        { role: "user", text: "please refund it" },
        { role: "bot", text: "re: please refund it" },
      ],
    });
    expect(archived?.tokenEstimate).toBeGreaterThan(10);
    expect(archived?.endedAt).toBeGreaterThanOrEqual(startedAt ?? Number.POSITIVE_INFINITY);
    expect((await h.team.conversationState(MEMORY_TEST_KEY))?.messages).toEqual([]);
    expect(await h.memory.agent.state(MEMORY_TEST_KEY)).toBeUndefined();

    const before = teamModel.callCount;
    expect((await h.say("hello again")).join("\n")).toContain("re: hello again");
    const fresh = teamModel.calls[before];
    expect(fresh?.messages.map((m) => m.getType())).toEqual(["system", "human"]);
    // The session's facts reach the next session once: in the context document archiving rewrote,
    // not again as its entries and its summary.
    expect(systemOf(fresh)).toContain("Context: the user and the bot talk about the weekly numbers.");
    expect(systemOf(fresh)).not.toContain("Ana asked about invoice 42; the bot promised a refund.");
    expect(systemOf(fresh)).not.toContain("Noted: my invoice 42 is wrong");

    const answer = (await h.say("what did we say about the invoice?")).join("\n");
    expect(answer).toContain('From memory: Earlier sessions matching "invoice refund"');
    expect(answer).toContain("Ana asked about invoice 42");
    await h.stop();
  });

  it("a message after the idle time starts a new session even when no sweep has run: the quiet one is archived first", async () => {
    const teamModel = scriptedTeamModel((messages) => `re: ${lastHuman(messages)}`);
    const h = await start({ teamModel, memoryModel: scriptedMemoryModel() });
    await h.say("my invoice 42 is wrong");
    await h.settle();
    const firstStartedAt = (await h.memory.agent.state(MEMORY_TEST_KEY))?.startedAt;

    // Within the idle time the next message joins the session.
    clock.advance(29 * MINUTE);
    await h.say("still there?");
    await h.settle();
    expect((await h.memory.agent.state(MEMORY_TEST_KEY))?.startedAt).toBe(firstStartedAt);
    expect(await h.memory.archive.recent(MEMORY_TEST_KEY, 5)).toEqual([]);

    // Past it, with the sweep behind: the run archives the quiet session before reading the history.
    clock.advance(31 * MINUTE);
    const before = teamModel.callCount;
    expect((await h.say("hello again")).join("\n")).toContain("re: hello again");
    expect(teamModel.calls[before]?.messages.map((m) => m.getType())).toEqual(["system", "human"]);
    const archived = await h.memory.archive.recent(MEMORY_TEST_KEY, 5);
    expect(archived).toHaveLength(1);
    expect(archived[0]).toMatchObject({ startedAt: firstStartedAt, messageCount: 4, reason: "idle" });
    await h.settle();
    const fresh = await h.memory.agent.state(MEMORY_TEST_KEY);
    expect(fresh?.startedAt).toBeGreaterThan(firstStartedAt ?? Number.POSITIVE_INFINITY);
    expect(fresh?.messageCount).toBe(2);
    // The sweep then finds nothing left to archive.
    expect(await h.memory.sweeper.sweep()).toEqual([]);
    await h.stop();
  });

  it("falls back to an extractive summary when the summary model fails", async () => {
    const summaryModel = fakeModel().respond(new Error("summary model is down"));
    const h = await start({
      teamModel: scriptedTeamModel(() => "Sure."),
      memoryModel: scriptedMemoryModel(),
      summaryModel,
    });
    await h.say("Book a room for Friday. Ten people.");
    await h.say("And order lunch.");
    await h.settle();
    clock.advance(31 * MINUTE);
    const [archived] = await h.memory.sweeper.sweep();
    expect(summaryModel.callCount).toBe(1);
    expect(archived?.summary).toBe(extractiveSummary(archived?.transcript ?? []));
    expect(archived?.summary).toBe(
      'The user opened with: "Book a room for Friday". Last the user wrote: "And order lunch". 4 messages in total.',
    );
    await h.stop();
  });

  it("compacts a long session over the token budget, never splitting a tool call from its result", async () => {
    const long = (label: string) => `${label} ${"detail ".repeat(80)}`;
    const teamModel = scriptedTeamModel((messages) => {
      const last = messages.at(-1);
      return last && HumanMessage.isInstance(last)
        ? toolCall("search_memory", { query: "anything" })
        : long("answer");
    });
    const memoryModel = scriptedMemoryModel({ summary: "Earlier: several long questions were answered." });
    const h = await start({
      teamModel,
      memoryModel,
      supervisorTools: ["search_memory"],
      config: { historyTokenBudget: 600 },
    });
    for (const turn of ["q1", "q2", "q3"]) {
      await h.say(long(turn));
      await h.settle();
    }
    const history = (await h.team.conversationState(MEMORY_TEST_KEY))?.messages ?? [];
    expect(
      history.filter((m) => HumanMessage.isInstance(m)).map((m) => String(m.content).split(" ")[0]),
    ).toEqual(["q3"]);
    expect(HumanMessage.isInstance(history[0])).toBe(true);
    const calls = history.flatMap((m) =>
      AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id) : [],
    );
    const results = history
      .filter((m) => ToolMessage.isInstance(m))
      .map((m) => (m as ToolMessage).tool_call_id);
    expect(results).toEqual(calls);
    expect(await h.memory.contextFor(MEMORY_TEST_KEY)).toContain(
      "Earlier in this session (condensed)\nEarlier: several long questions were answered.",
    );

    const before = teamModel.callCount;
    await h.say(long("q4"));
    expect(teamModel.calls[before]?.messages.filter((m) => HumanMessage.isInstance(m))).toHaveLength(2);
    expect(systemOf(teamModel.calls[before])).toContain("Earlier: several long questions were answered.");
    await h.stop();
  });

  it("/memory shows what is remembered; /forget asks, then deletes it all", async () => {
    const h = await start({
      teamModel: scriptedTeamModel(() => "Noted, Lisbon."),
      memoryModel: scriptedMemoryModel(),
      config: { flushEvery: 2 },
    });
    expect((await h.say("/memory")).join("\n")).toContain(
      "I don't remember anything about this conversation yet.",
    );
    await h.say("I work from the Lisbon office");
    await h.settle();
    const shown = (await h.say("/memory")).join("\n");
    expect(shown).toContain("Context: the user and the bot talk about the weekly numbers.");
    expect(shown).toContain("- user: Noted: I work from the Lisbon office");
    expect(shown).toContain("Latest of 2 remembered messages");

    expect((await h.say("/forget")).join("\n")).toContain("Send `/forget confirm` to go ahead.");
    expect(await h.memory.book.entryCount(MEMORY_TEST_KEY)).toBe(2);
    expect((await h.say("/forget confirm")).join("\n")).toContain("Forgotten: 2 remembered messages");
    expect((await h.say("/memory")).join("\n")).toContain("I don't remember anything");
    expect(await h.memory.agent.state(MEMORY_TEST_KEY)).toBeUndefined();
    expect((await h.team.conversationState(MEMORY_TEST_KEY))?.messages ?? []).toEqual([]);
    await h.stop();
  });

  it("/memory says which of the session's latest messages wait for the next flush", async () => {
    const h = await start({
      teamModel: scriptedTeamModel(() => "Noted."),
      memoryModel: scriptedMemoryModel(),
      config: { flushEvery: 4 },
    });
    await h.say("I work from the Lisbon office");
    await h.settle();
    const waiting = (await h.say("/memory")).join("\n");
    expect(waiting).toContain(
      "The latest 2 messages are not summarized yet: I do that every 4 messages and when the conversation goes quiet.",
    );
    expect(waiting).not.toContain("I don't remember anything");
    await h.say("and on Fridays from home");
    await h.settle();
    const shown = (await h.say("/memory")).join("\n");
    expect(shown).toContain("- user: Noted: and on Fridays from home");
    expect(shown).not.toContain("not summarized yet");
    await h.stop();
  });

  it("/memory never shows a link or code span cut in the middle", async () => {
    const memoryModel = fakeModel();
    for (let i = 0; i < 20; i++) memoryModel.respond(new Error("memory model is down"));
    // Two messages a flush: the turn is recorded (without the failing model) before /memory.
    const h = await start({
      teamModel: scriptedTeamModel(() => "Will do."),
      memoryModel,
      config: { flushEvery: 2 },
    });
    await h.say(
      "Read [the refund policy](https://example.com/help/refunds.html) first. Then run `orders.refund(42). now` please. Thanks.",
    );
    await h.settle();
    const shown = (await h.say("/memory")).join("\n");
    expect(shown).toContain(
      "- user: Read [the refund policy](https://example.com/help/refunds.html) first. Then run `orders.refund(42). now` please.",
    );
    await h.stop();
  });
});
