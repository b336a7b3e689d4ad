import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { openStore, type Store } from "@switchboard/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTeamHarness } from "./support/team-harness.ts";

async function lockIsFree(store: Store): Promise<boolean> {
  const token = await store.atomic.acquireLock("lock:console:main", 1_000);
  if (token) await store.atomic.releaseLock("lock:console:main", token);
  return token !== null;
}

const handoff = (agent: string) => ({ name: `transfer_to_${agent}`, args: {} });
const lastHumanText = (messages: unknown[]) =>
  String(
    (messages.filter((m) => HumanMessage.isInstance(m)).at(-1) as HumanMessage | undefined)?.content ?? "",
  );

describe("agent team with sticky routing", () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore("memory://");
  });
  afterEach(async () => {
    await store.close();
  });

  it("hands off once (2 model calls), then the specialist answers follow-ups directly (1 call each)", async () => {
    const sup = fakeModel().respondWithTools([handoff("billing")]);
    const bill = fakeModel()
      .respond(new AIMessage("Your last invoice was 40 EUR."))
      .respond(new AIMessage("Refund issued."));
    const h = await startTeamHarness({ store, models: { sup, bill, tech: fakeModel() } });

    const first = await h.say("I have a question about my invoice");
    expect(first.join("\n")).toMatch(/billing .*Your last invoice was 40 EUR\./);
    expect([sup.callCount, bill.callCount]).toEqual([1, 1]);

    const followUp = await h.say("please refund it");
    expect(followUp.join("\n")).toMatch(/billing .*Refund issued\./);
    expect([sup.callCount, bill.callCount]).toEqual([1, 2]);
    // The specialist sees the whole conversation, its own earlier answer included.
    expect(bill.calls[1]?.messages.map((m) => String(m.content))).toContain("Your last invoice was 40 EUR.");
    await h.stop();
  });

  it("keeps every answer when the model's server reuses one completion id", async () => {
    // Some OpenAI-compatible servers number completions per process, or send one constant id.
    const sup = fakeModel()
      .respond(new AIMessage({ content: "First answer.", id: "chatcmpl-1" }))
      .respond(new AIMessage({ content: "Second answer.", id: "chatcmpl-1" }));
    const h = await startTeamHarness({ store, models: { sup, bill: fakeModel(), tech: fakeModel() } });
    expect((await h.say("one")).join("\n")).toContain("First answer.");
    expect((await h.say("two")).join("\n")).toContain("Second answer.");
    // The second call saw the first answer still in the history.
    expect(sup.calls[1]?.messages.map((m) => String(m.content))).toContain("First answer.");
    await h.stop();
  });

  it("/supervisor hands back; with a message the supervisor answers it (and may hand off again)", async () => {
    const sup = fakeModel()
      .respondWithTools([handoff("billing")])
      .respond((messages) => new AIMessage(`supervisor got: ${lastHumanText(messages)}`))
      .respondWithTools([handoff("billing")]);
    const bill = fakeModel()
      .respond(new AIMessage("billing 1"))
      .respond(new AIMessage("here are your invoices"));
    const h = await startTeamHarness({ store, models: { sup, bill, tech: fakeModel() } });
    await h.say("invoice question");

    expect((await h.say("/supervisor")).join("\n")).toContain("Back to the supervisor.");
    const answered = await h.say("what can you do?");
    expect(answered.join("\n")).toMatch(/supervisor .*supervisor got: what can you do\?/);

    const again = await h.say("/supervisor show me my invoices");
    expect(again.join("\n")).toContain("Back to the supervisor.");
    expect(lastHumanText(sup.calls[2]?.messages ?? [])).toBe("show me my invoices");
    expect(again.join("\n")).toMatch(/billing .*here are your invoices/);
    expect((await h.team.activeAgents.get("console:main"))?.agent).toBe("billing");
    await h.stop();
  });

  it("/reset forgets the conversation: no agent, no history", async () => {
    const sup = fakeModel()
      .respondWithTools([handoff("billing")])
      .respond(new AIMessage("fresh supervisor"));
    const bill = fakeModel().respond(new AIMessage("billing here"));
    const h = await startTeamHarness({ store, models: { sup, bill, tech: fakeModel() } });
    await h.say("invoice please");
    expect(await h.team.conversationState("console:main")).toBeDefined();

    expect((await h.say("/reset")).join("\n")).toContain("Fresh start");
    expect(await h.team.activeAgents.get("console:main")).toBeUndefined();
    expect(await h.team.conversationState("console:main")).toBeUndefined();
    await h.say("hello again");
    expect(sup.calls[1]?.messages.filter((m) => HumanMessage.isInstance(m)).map((m) => m.content)).toEqual([
      "hello again",
    ]);
    await h.stop();
  });

  it("with routing.sticky off, every message goes through the supervisor", async () => {
    const sup = fakeModel()
      .respondWithTools([handoff("billing")])
      .respondWithTools([handoff("billing")]);
    const bill = fakeModel().respond(new AIMessage("one")).respond(new AIMessage("two"));
    const h = await startTeamHarness({ store, models: { sup, bill, tech: fakeModel() }, sticky: false });
    await h.say("invoice");
    await h.say("another invoice");
    expect([sup.callCount, bill.callCount]).toEqual([2, 2]);
    await h.stop();
  });

  it("/agents and /status answer without any model call", async () => {
    const sup = fakeModel().respondWithTools([handoff("tech_support")]);
    const tech = fakeModel().respond(new AIMessage("try turning it off and on"));
    const h = await startTeamHarness({ store, models: { sup, bill: fakeModel(), tech } });
    await h.say("my laptop is broken");
    const agents = (await h.say("/agents")).join("\n");
    expect(agents).toMatch(/billing.*invoices, payments, refunds/);
    expect(agents).toMatch(/tech_support.*computers/);
    const status = (await h.say("/status")).join("\n");
    expect(status).toMatch(/Answering here: \*\*tech_support\*\* since \d{4}-/);
    expect(status).toContain("Messages in this conversation: 1.");
    expect(status).toContain("Model: scripted:tech.");
    expect([sup.callCount, tech.callCount]).toEqual([1, 1]);
    await h.stop();
  });

  describe("limits stop runaway turns with a clear message and leave nothing locked", () => {
    const ping = tool(async () => "pong", { name: "ping", description: "ping", schema: z.object({}) });
    const team = {
      supervisor: { prompt: "sup", model: "sup", tools: ["ping"] },
      specialists: [],
    };

    it("max iterations", async () => {
      const sup = fakeModel();
      for (let i = 0; i < 10; i++) sup.respondWithTools([{ name: "ping", args: { n: i } }]);
      const h = await startTeamHarness({
        store,
        models: { sup },
        team,
        tools: { ping },
        limits: { maxIterations: 3, maxRepeatedToolCalls: 50 },
      });
      expect((await h.say("loop")).join("\n")).toContain("I stopped after 3 steps");
      expect(sup.callCount).toBe(3);
      expect(await lockIsFree(store)).toBe(true);
      await h.stop();
    });

    it("the same tool more than N times in a row", async () => {
      const sup = fakeModel();
      for (let i = 0; i < 10; i++) sup.respondWithTools([{ name: "ping", args: {} }]);
      const h = await startTeamHarness({
        store,
        models: { sup },
        team,
        tools: { ping },
        limits: { maxRepeatedToolCalls: 2 },
      });
      expect((await h.say("loop")).join("\n")).toContain(
        "the tool ping was called more than 2 times in a row",
      );
      expect(sup.callCount).toBe(3);
      await h.stop();
    });

    it("wall time", async () => {
      const slow = tool(
        async (_input, config) =>
          new Promise((_resolve, reject) =>
            config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))),
          ),
        { name: "ping", description: "waits forever", schema: z.object({}) },
      );
      const sup = fakeModel().respondWithTools([{ name: "ping", args: {} }]);
      const h = await startTeamHarness({
        store,
        models: { sup },
        team,
        tools: { ping: slow },
        limits: { wallTimeSeconds: 0.2 },
      });
      expect((await h.say("slow")).join("\n")).toContain("took longer than");
      expect(await lockIsFree(store)).toBe(true);
      // The next turn works: the cut-off tool call was answered for the model.
      sup.respond(new AIMessage("fine now"));
      const again = await h.say("again");
      expect(again.join("\n")).toContain("fine now");
      await h.stop();
    });
  });
});
