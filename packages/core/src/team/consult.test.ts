import type { BaseMessage } from "@langchain/core/messages";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { type Colleague, consultMessages, consultTool } from "./consult.ts";

/** A colleague whose model says what it was asked, and records every prompt it got. */
function colleague(name: string, seen: BaseMessage[][]): Colleague {
  const model = fakeModel();
  for (let index = 0; index < 5; index++)
    model.respond((messages: BaseMessage[]) => {
      seen.push(messages);
      return new AIMessage(`${name} on "${String(messages.at(-1)?.content)}"`);
    });
  return { name, description: `${name} things`, prompt: `You are ${name}.`, model };
}

function toolFor(asker: string, seen: BaseMessage[][], maxDepth = 1) {
  const colleagues = [colleague("billing", seen), colleague("tech_support", seen)];
  return consultTool(asker, {
    colleagues: () => colleagues,
    maxDepth,
    maxSteps: 4,
    contextFor: async () => "The user is on the premium plan.",
    situationOf: () => "It is Monday.",
    callModel: (call, signal) => call(signal, () => undefined),
  });
}

const ask = (
  tool: ReturnType<typeof consultTool>,
  args: { agent: string; question: string },
  depth?: number,
) =>
  tool.invoke(args, {
    configurable: { thread_id: "t1", ...(depth === undefined ? {} : { consult_depth: depth }) },
  });

describe("consult", () => {
  it("asks the colleague with its prompt, the memory context and a note that a colleague asks", async () => {
    const seen: BaseMessage[][] = [];
    const answer = await ask(toolFor("billing", seen), { agent: "tech_support", question: "Sync error?" });
    expect(answer).toBe('tech_support answers: tech_support on "Sync error?"');
    const system = String(seen[0]?.[0]?.content);
    expect(system).toContain("You are tech_support.");
    expect(system).toContain("The user is on the premium plan.");
    expect(system).toContain("Your colleague billing is answering a user and asks you one question.");
    expect(system).toContain("It is Monday.");
  });

  it.each([
    ["itself", { agent: "billing", question: "?" }, undefined, consultMessages.self],
    [
      "an unknown name",
      { agent: "legal", question: "?" },
      undefined,
      consultMessages.unknown("legal", ["tech_support"]),
    ],
    ["beyond the depth", { agent: "tech_support", question: "?" }, 1, consultMessages.tooDeep(1)],
  ])("refuses to consult %s, with a sentence the model reads", async (_case, args, depth, message) => {
    const seen: BaseMessage[][] = [];
    await expect(ask(toolFor("billing", seen), args, depth)).rejects.toThrow(message);
    expect(seen).toEqual([]);
  });
});
