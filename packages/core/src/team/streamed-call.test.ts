import { AIMessageChunk } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { OfflineChatModel } from "../models/offline-model.ts";
import { openStore } from "../store/open-store.ts";
import type { Store } from "../store/types.ts";
import type { TurnEvent } from "../streaming/turn-events.ts";
import { Team } from "./team.ts";
import { teamConfigSchema } from "./team-config.ts";

const config = teamConfigSchema.parse({
  supervisor: { prompt: "Route the user." },
  specialists: [
    {
      name: "billing",
      description: "invoices, payments, refunds",
      prompt: "Help with billing.",
      tools: ["look_up_invoice"],
    },
  ],
});

function teamWith(
  store: Store,
  modelFor: () => OfflineChatModel | FakeStreamingChatModel,
  status?: string,
  onLookUp?: () => void,
) {
  const lookUpInvoice = tool(
    async () => {
      onLookUp?.();
      return "invoice 42: paid";
    },
    { name: "look_up_invoice", description: "finds an invoice", schema: z.object({}) },
  );
  return new Team({
    config,
    routing: { sticky: true },
    limits: { maxIterations: 10, maxRepeatedToolCalls: 3, wallTimeSeconds: 60 },
    checkpointer: new MemorySaver(),
    store,
    modelFor,
    describeModel: () => "test",
    tools: { look_up_invoice: lookUpInvoice },
    ...(status ? { toolStatus: (name: string) => (name === "look_up_invoice" ? status : undefined) } : {}),
  });
}

/** What a thread would show: the text events folded, discards applied, progress kept in order. */
function fold(events: readonly TurnEvent[]) {
  let text = "";
  const progress: string[] = [];
  for (const event of events) {
    if (event.kind === "text") text += event.delta;
    else if (event.kind === "discard") text = "";
    else if (event.kind === "progress") progress.push(event.status);
  }
  return { text, progress, complete: events.at(-1)?.kind === "complete" };
}

describe("streamed team turns", () => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it("streams the answering agent's text word by word after a handoff shown as progress", async () => {
    store = await openStore("memory://");
    const team = teamWith(store, () => new OfflineChatModel());
    const events: TurnEvent[] = [];
    const outcome = await team.run({
      key: "test:dm",
      userId: "u1",
      signal: new AbortController().signal,
      text: "I was charged twice for my invoice",
      onEvent: (event) => events.push(event),
    });
    expect(outcome.kind).toBe("answered");
    const shown = fold(events);
    expect(outcome.kind === "answered" && shown.text).toBe(outcome.kind === "answered" ? outcome.text : "");
    expect(shown.progress).toEqual(["supervisor is handing over to billing…"]);
    // Word by word: many text pieces, none from the supervisor's handoff step.
    const pieces = events.filter((event) => event.kind === "text");
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.every((event) => event.agent === "billing")).toBe(true);
  });

  it("takes back a tool step's preamble and shows the tool's status text instead", async () => {
    store = await openStore("memory://");
    const toolStep = [
      new AIMessageChunk({ content: "Let me " }),
      new AIMessageChunk({ content: "look." }),
      new AIMessageChunk({
        content: "",
        tool_call_chunks: [
          { type: "tool_call_chunk", name: "look_up_invoice", args: "{}", id: "call-1", index: 0 },
        ],
      }),
    ];
    const answerStep = ["Invoice ", "42 ", "is ", "paid."].map((content) => new AIMessageChunk({ content }));
    // The model streams the tool step until the tool has run, then the answer.
    const model = new FakeStreamingChatModel({ chunks: toolStep });
    const team = teamWith(
      store,
      () => model,
      "is checking your invoice…",
      () => {
        // In place: the model is bound to its tools once, and the bound copy shares this array.
        model.chunks.splice(0, model.chunks.length, ...answerStep);
      },
    );
    // The supervisor is skipped: billing is already the active agent.
    await team.activeAgents.set("test:dm", "billing");
    const events: TurnEvent[] = [];
    const outcome = await team.run({
      key: "test:dm",
      userId: "u1",
      signal: new AbortController().signal,
      text: "is my invoice paid?",
      onEvent: (event) => events.push(event),
    });
    expect(outcome).toMatchObject({ kind: "answered", text: "Invoice 42 is paid." });
    // The tool step never says it is complete; the answer does, once, last.
    expect(fold(events)).toEqual({
      text: "Invoice 42 is paid.",
      progress: ["billing is checking your invoice…"],
      complete: true,
    });
    expect(events.filter((event) => event.kind === "complete")).toHaveLength(1);
    expect(events.map((event) => event.kind)).toContain("discard");
  });
});
