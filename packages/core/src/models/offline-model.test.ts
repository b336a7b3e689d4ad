import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OfflineChatModel } from "./offline-model.ts";

function handoff(agent: string, description: string) {
  return tool(async () => `Transferred to ${agent}`, {
    name: `transfer_to_${agent}`,
    description,
    schema: z.object({}),
  });
}

const handoffTools = [
  handoff("billing", "billing: invoices, payments, refunds"),
  handoff("tech_support", "tech_support: laptops, wifi, booting problems"),
  handoff("scheduling", "scheduling: appointments, calendar"),
];
const supervisorPrompt = new SystemMessage(
  "You are the supervisor.\nHand each request to the right specialist.",
);

async function supervisorTurn(text: string, model = new OfflineChatModel()) {
  return model.bindTools(handoffTools).invoke([supervisorPrompt, new HumanMessage(text)]);
}

describe("OfflineChatModel", () => {
  it("hands a refund request to billing with one tool call", async () => {
    const reply = await supervisorTurn("I need a refund on my invoice");
    expect(reply.tool_calls).toHaveLength(1);
    expect(reply.tool_calls?.[0]).toMatchObject({ name: "transfer_to_billing", args: {}, type: "tool_call" });
    expect(reply.tool_calls?.[0]?.id).toMatch(/^offline_call_[0-9a-f]{8}$/);
    expect(reply.text).toBe("");
  });

  it("hands a boot problem to tech support", async () => {
    const reply = await supervisorTurn("my laptop won't boot");
    expect(reply.tool_calls?.map((call) => call.name)).toEqual(["transfer_to_tech_support"]);
  });

  it("answers itself, naming the specialists, when nothing matches", async () => {
    const reply = await supervisorTurn("what's the weather like?");
    expect(reply.tool_calls).toEqual([]);
    expect(reply.text).toBe(
      '[offline model] supervisor here. You said: "what\'s the weather like?". No specialist matched your words ' +
        "(specialists: billing, tech_support, scheduling). Configure a real model in switchboard.yaml for real answers.",
    );
  });

  it("answers instead of handing off again once a handoff result is in this turn", async () => {
    const call = { id: "call_1", name: "transfer_to_billing", args: {}, type: "tool_call" as const };
    const history: BaseMessage[] = [
      new SystemMessage("You are billing, the billing specialist."),
      new HumanMessage("I need a refund on my invoice"),
      new AIMessage({ content: "", tool_calls: [call] }),
      new ToolMessage({ content: "Transferred to billing", tool_call_id: "call_1", name: call.name }),
    ];
    const reply = await new OfflineChatModel().bindTools(handoffTools).invoke(history);
    expect(reply.tool_calls).toEqual([]);
    expect(reply.text).toBe(
      '[offline model] billing here. You said: "I need a refund on my invoice". ' +
        "Configure a real model in switchboard.yaml for real answers.",
    );
  });

  it("hands off again in a later turn: only tool results after the latest user message count", async () => {
    const history: BaseMessage[] = [
      supervisorPrompt,
      new HumanMessage("refund please"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "transfer_to_billing", args: {} }] }),
      new ToolMessage({ content: "Transferred", tool_call_id: "c1" }),
      new AIMessage("[offline model] billing here."),
      new HumanMessage("now my wifi is down"),
    ];
    const reply = await new OfflineChatModel().bindTools(handoffTools).invoke(history);
    expect(reply.tool_calls?.map((call) => call.name)).toEqual(["transfer_to_tech_support"]);
  });

  it("answers plain prompts with no tools, signed with the configured name", async () => {
    const reply = await new OfflineChatModel({ agentName: "memory" }).invoke([
      new SystemMessage("You are billing."),
      new HumanMessage("  hello\n  there  "),
    ]);
    expect(reply.tool_calls).toEqual([]);
    expect(reply.text).toBe(
      '[offline model] memory here. You said: "hello there". Configure a real model in switchboard.yaml for real answers.',
    );
  });

  it("falls back to 'assistant' and shortens long messages", async () => {
    const reply = await new OfflineChatModel().invoke([new HumanMessage("x".repeat(500))]);
    expect(reply.text).toMatch(/^\[offline model\] assistant here\. You said: "x{199}…"\./);
  });

  it("fills required string arguments of a handoff tool with the user's words", async () => {
    const withReason = tool(async () => "ok", {
      name: "transfer_to_billing",
      description: "billing: refunds",
      schema: z.object({ reason: z.string(), priority: z.number().optional() }),
    });
    const reply = await new OfflineChatModel()
      .bindTools([withReason])
      .invoke([new HumanMessage("refund me")]);
    expect(reply.tool_calls?.[0]?.args).toEqual({ reason: "refund me" });
  });

  it("accepts tools given as OpenAI-style definitions", async () => {
    const definition = {
      type: "function",
      function: { name: "transfer_to_billing", description: "refunds", parameters: { type: "object" } },
    };
    const reply = await new OfflineChatModel().bindTools([definition]).invoke([new HumanMessage("a refund")]);
    expect(reply.tool_calls?.[0]?.name).toBe("transfer_to_billing");
  });

  it("is deterministic: equal input, equal output; a different history, a different id", async () => {
    const first = await supervisorTurn("I need a refund on my invoice");
    const second = await supervisorTurn("I need a refund on my invoice", new OfflineChatModel());
    expect(second.tool_calls).toEqual(first.tool_calls);
    expect(second.id).toBe(first.id);
    const other = await supervisorTurn("refund on my invoice, please");
    expect(other.tool_calls?.[0]?.id).not.toBe(first.tool_calls?.[0]?.id);

    const answerA = await supervisorTurn("what's the weather like?");
    const answerB = await supervisorTurn("what's the weather like?");
    expect(answerB.text).toBe(answerA.text);
    expect(answerB.id).toBe(answerA.id);
  });

  it("estimates token usage at four characters a token", async () => {
    const messages = [new SystemMessage("You are billing."), new HumanMessage("hello")];
    const reply = await new OfflineChatModel().invoke(messages);
    const inputChars = "You are billing.".length + "hello".length;
    expect(reply.usage_metadata).toEqual({
      input_tokens: Math.ceil(inputChars / 4),
      output_tokens: Math.ceil(reply.text.length / 4),
      total_tokens: Math.ceil(inputChars / 4) + Math.ceil(reply.text.length / 4),
    });
    const withTools = await new OfflineChatModel().bindTools(handoffTools).invoke(messages);
    expect(withTools.usage_metadata?.input_tokens).toBeGreaterThan(Math.ceil(inputChars / 4));
  });
});

describe("offline model: attachments", () => {
  it("acknowledges each file by name, type and size, with the first words of its text", async () => {
    const model = new OfflineChatModel({ agentName: "supervisor" });
    const text = [
      "what do these say?",
      "",
      "[File attached: invoice.pdf · application/pdf · 1 KB · 1 page — its text follows]",
      "<<<",
      "Invoice 42: total 99 EUR due on the first of April",
      ">>>",
      "",
      "[Image attached: shot.png · image/png · 70 bytes — shown to you as an image]",
      "",
      "[File attached: report.xlsx · application/zip · 3 KB — not read: unsupported type (application/zip)]",
    ].join("\n");
    const reply = await model.invoke([new HumanMessage(text)]);
    expect(reply.text).toBe(
      '[offline model] supervisor here. You said: "what do these say?". I received invoice.pdf · application/pdf · 1 KB · 1 page (it begins: "Invoice 42: total 99 EUR due on the…"); shot.png · image/png · 70 bytes (an image I cannot look at offline); report.xlsx · application/zip · 3 KB (not read: unsupported type (application/zip)). Configure a real model in switchboard.yaml for real answers.',
    );
  });
});
