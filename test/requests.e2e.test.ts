import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { openStore, type Store } from "@switchboard/core";
import type { CatalogEntry } from "@switchboard/core/host";
import { RecordingAdapter, waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTrackingHarness } from "./support/tracking-harness.ts";

const conversationA = { platform: "test", path: ["general", "root-a"] };
const conversationB = { platform: "test", path: ["general", "root-b"] };

function weatherTool(calls: string[]): CatalogEntry {
  return {
    tool: tool(
      async ({ city }) => {
        calls.push(city);
        return `${city}: sunny, 21°C`;
      },
      {
        name: "weather",
        description: "weather forecast for a city",
        schema: z.object({ city: z.string() }),
      },
    ),
    requiresApproval: false,
  };
}

function refundTool(calls: number[]): CatalogEntry {
  return {
    tool: tool(
      async ({ amount }) => {
        calls.push(amount);
        return `refunded ${amount}`;
      },
      {
        name: "refund",
        description: "refund a payment",
        schema: z.object({ amount: z.number() }),
      },
    ),
    requiresApproval: true,
  };
}

describe("cross-run request tracking", () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore("memory://");
  });
  afterEach(async () => {
    await store.close();
  });

  it("answers from the follow-up run after find_tools, as a reply to the original message", async () => {
    const weatherCalls: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "find_tools", args: { query: "weather forecast" }, id: "c1" }])
      .respondWithTools([{ name: "weather", args: { city: "Oslo" }, id: "c2" }])
      .respond(new AIMessage("Oslo is sunny, 21°C."));
    const h = await startTrackingHarness({
      store,
      model,
      catalog: [weatherTool(weatherCalls)],
      supervisorTools: ["find_tools"],
    });
    const origin = await h.adapter.send("what's the weather in Oslo?", { conversation: conversationA });
    await waitFor("the follow-up answer", () => h.adapter.posts.length === 1);
    await h.engine.idle();

    expect(h.adapter.posts).toHaveLength(1);
    expect(h.adapter.posts[0]).toMatchObject({
      text: "Oslo is sunny, 21°C.",
      replyTo: origin.id,
      conversation: conversationA,
    });
    expect(weatherCalls).toEqual(["Oslo"]);
    const request = await h.tracking.tracker.byOrigin(origin.id);
    expect(request?.status).toBe("completed");
    expect(request?.runs.map((run) => run.triggeredBy)).toEqual(["user_message", "tools_attached"]);
    expect(request?.runs[1]?.parentRunId).toBe(request?.runs[0]?.runId);
    await h.stop();
  });

  it("names the platform's command prefix when a loop guard stops the turn", async () => {
    const model = fakeModel();
    for (let i = 0; i < 10; i++) model.respondWithTools([{ name: "ping", args: {}, id: `p${i}` }]);
    const ping: CatalogEntry = {
      tool: tool(async () => "pong", { name: "ping", description: "ping", schema: z.object({}) }),
      requiresApproval: false,
    };
    const h = await startTrackingHarness({
      store,
      model,
      catalog: [ping],
      supervisorTools: ["ping"],
      adapter: new RecordingAdapter({ commandPrefix: "!" }),
    });
    await h.adapter.send("ping until told otherwise", { conversation: conversationA });
    await h.engine.idle();
    expect(h.adapter.posts.at(-1)?.text).toMatch(/loop guard\)\. Try rephrasing, or !reset\.$/);
    await h.stop();
  });

  describe("approval", () => {
    const setup = async (refunds: number[], answer: string, adapter?: RecordingAdapter) => {
      const model = fakeModel()
        .respondWithTools([{ name: "refund", args: { amount: 40 }, id: "r1" }])
        .respond(new AIMessage(answer));
      const h = await startTrackingHarness({
        store,
        model,
        catalog: [refundTool(refunds)],
        supervisorTools: ["refund"],
        admins: ["admin-1"],
        ...(adapter ? { adapter } : {}),
      });
      const origin = await h.adapter.send("refund my 40 EUR", {
        conversation: conversationA,
        author: { id: "ana", isBot: false, isSelf: false },
      });
      await h.engine.idle();
      return { h, origin, model };
    };

    it("names the prefix that works on the platform in the prompt (`!approve` where `/` is the client's)", async () => {
      const refunds: number[] = [];
      const { h } = await setup(refunds, "Done.", new RecordingAdapter({ commandPrefix: "!" }));
      expect(h.adapter.posts.at(-1)?.text).toMatch(/Reply `!approve` to let it, or `!deny` to refuse\.$/);
      await h.adapter.send("!approve", {
        conversation: conversationA,
        author: { id: "ana", isBot: false, isSelf: false },
      });
      await h.engine.idle();
      expect(refunds).toEqual([40]);
      await h.stop();
    });

    it("waits for /approve from the requester, then resumes as a new run answering the original message", async () => {
      const refunds: number[] = [];
      const { h, origin } = await setup(refunds, "Done: 40 EUR refunded.");
      expect(h.adapter.posts.at(-1)).toMatchObject({ replyTo: origin.id });
      expect(h.adapter.posts.at(-1)?.text).toMatch(
        /wants to run `refund` with \{"amount":40\}.*\/approve.*\/deny/,
      );
      expect(refunds).toEqual([]);

      await h.adapter.send("/approve", {
        conversation: conversationA,
        author: { id: "mallory", isBot: false, isSelf: false },
      });
      await h.engine.idle();
      expect(h.adapter.posts.at(-1)?.text).toBe(
        "Only the person who asked, or an admin, can approve or deny this.",
      );
      expect(refunds).toEqual([]);

      await h.adapter.send("/approve", {
        conversation: conversationA,
        author: { id: "ana", displayName: "Ana", isBot: false, isSelf: false },
      });
      await h.engine.idle();
      expect(refunds).toEqual([40]);
      const answer = h.adapter.posts.at(-1);
      expect(answer).toMatchObject({
        text: "Done: 40 EUR refunded.",
        replyTo: origin.id,
        conversation: conversationA,
      });
      const request = await h.tracking.tracker.byOrigin(origin.id);
      expect(request?.runs.map((run) => [run.triggeredBy, run.status])).toEqual([
        ["user_message", "interrupted"],
        ["approval", "completed"],
      ]);
      await h.stop();
    });

    it("after /deny the action does not run and the agent answers without it", async () => {
      const refunds: number[] = [];
      const { h, origin, model } = await setup(refunds, "Understood, no refund.");
      await h.adapter.send("/deny", {
        conversation: conversationA,
        author: { id: "ana", isBot: false, isSelf: false },
      });
      await h.engine.idle();
      expect(refunds).toEqual([]);
      expect(h.adapter.posts.at(-1)).toMatchObject({ text: "Understood, no refund.", replyTo: origin.id });
      const lastPrompt = model.calls
        .at(-1)
        ?.messages.map((m) => String(m.content))
        .join("\n");
      expect(lastPrompt).toContain("denied this action");
      await h.stop();
    });

    it("an admin may approve someone else's request", async () => {
      const refunds: number[] = [];
      const { h } = await setup(refunds, "ok");
      await h.adapter.send("/approve", {
        conversation: conversationA,
        author: { id: "admin-1", isBot: false, isSelf: false },
      });
      await h.engine.idle();
      expect(refunds).toEqual([40]);
      await h.stop();
    });
  });

  it("keeps two overlapping requests apart, in one conversation and across two", async () => {
    const model = fakeModel()
      .respond((messages) => new AIMessage(`answer to ${String(messages.at(-1)?.content)}`))
      .respond((messages) => new AIMessage(`answer to ${String(messages.at(-1)?.content)}`))
      .respond((messages) => new AIMessage(`answer to ${String(messages.at(-1)?.content)}`));
    const h = await startTrackingHarness({ store, model, catalog: [], supervisorTools: [] });
    const a1 = await h.adapter.send("first in A", { conversation: conversationA });
    const b1 = await h.adapter.send("first in B", { conversation: conversationB });
    const a2 = await h.adapter.send("second in A", { conversation: conversationA });
    await h.engine.idle();
    const replyTo = (id: string) =>
      h.adapter.posts.filter((p) => p.replyTo === id).map((p) => [p.text, p.conversation.path[1]]);
    expect(replyTo(a1.id)).toEqual([["answer to first in A", "root-a"]]);
    expect(replyTo(b1.id)).toEqual([["answer to first in B", "root-b"]]);
    expect(replyTo(a2.id)).toEqual([["answer to second in A", "root-a"]]);
    await h.stop();
  });

  it("a follow-up run interleaved with a newer request still answers its own origin", async () => {
    const weatherCalls: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "find_tools", args: { query: "weather" }, id: "f1" }])
      .respond(new AIMessage("answer to the second question"))
      .respond(new AIMessage("the weather answer"));
    const h = await startTrackingHarness({
      store,
      model,
      catalog: [weatherTool(weatherCalls)],
      supervisorTools: ["find_tools"],
    });
    // Both arrive before the first turn runs: the follow-up of the first queues behind the second.
    const [first, second] = await Promise.all([
      h.adapter.send("weather please", { conversation: conversationA }),
      h.adapter.send("another question", { conversation: conversationA }),
    ]);
    await h.engine.idle();
    expect(h.adapter.posts.map((p) => [p.text, p.replyTo])).toEqual([
      ["answer to the second question", second?.id],
      ["the weather answer", first?.id],
    ]);
    await h.stop();
  });

  it("a restart between a run and its follow-up still delivers to the original thread", async () => {
    const dir = await import("node:fs/promises").then((fs) => fs.mkdtemp("/tmp/switchboard-restart-"));
    const { openCheckpointer } = await import("../packages/core/src/checkpoints/open-checkpointer.ts");
    const url = `sqlite://${dir}/switchboard.db`;
    const fileStore = await openStore(url);
    const checkpoints = await openCheckpointer(url);
    const adapter = new RecordingAdapter();
    const weatherCalls: string[] = [];
    // The first process finds the tools, then dies before its follow-up run answers.
    const dying = new DiesOnSecondCall({});
    const first = await startTrackingHarness({
      store: fileStore,
      model: dying,
      catalog: [weatherTool(weatherCalls)],
      supervisorTools: ["find_tools"],
      checkpointer: checkpoints.saver,
      adapter,
    });
    const origin = await adapter.send("weather in Rome?", { conversation: conversationA });
    await waitFor("the follow-up run to start", () => dying.callCount === 2);
    await first.stop();
    expect(adapter.posts).toEqual([]);

    const revived = fakeModel().respond(new AIMessage("Rome: sunny."));
    const second = await startTrackingHarness({
      store: fileStore,
      model: revived,
      catalog: [weatherTool(weatherCalls)],
      supervisorTools: ["find_tools"],
      checkpointer: checkpoints.saver,
      adapter,
    });
    await waitFor("the revived follow-up answer", () => adapter.posts.length === 1);
    expect(adapter.posts[0]).toMatchObject({
      text: "Rome: sunny.",
      replyTo: origin.id,
      conversation: conversationA,
    });
    await second.stop();
    await checkpoints.close();
    await fileStore.close();
  });
});

/** Finds tools on its first call; its second call hangs until the process stops (a crash mid-follow-up). */
class DiesOnSecondCall extends BaseChatModel {
  callCount = 0;
  _llmType() {
    return "dies-on-second-call";
  }
  override bindTools() {
    return this;
  }
  async _generate(_messages: unknown, options: this["ParsedCallOptions"]): Promise<ChatResult> {
    this.callCount += 1;
    if (this.callCount === 1) {
      const message = new AIMessage({
        content: "",
        tool_calls: [{ name: "find_tools", args: { query: "weather" }, id: "f1" }],
      });
      return { generations: [{ message, text: "" }] };
    }
    return new Promise((_resolve, reject) =>
      options.signal?.addEventListener("abort", () => reject(new Error("process stopped"))),
    );
  }
}
