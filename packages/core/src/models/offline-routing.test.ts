import { describe, expect, it } from "vitest";
import { contentStems, stem } from "../text/keywords.ts";
import { agentNameFromSystemPrompt, pickHandoffTool, type ToolSummary } from "./offline-routing.ts";

const team: ToolSummary[] = [
  { name: "transfer_to_billing", description: "billing: invoices, payments, refunds" },
  { name: "transfer_to_tech_support", description: "tech_support: laptops, wifi, booting problems, crashes" },
  { name: "transfer_to_scheduling", description: "scheduling: appointments, calendar, rescheduling visits" },
];

describe("stem", () => {
  const cases: Array<[string, string]> = [
    ["refunds", "refund"],
    ["invoices", "invoic"],
    ["invoice", "invoic"],
    ["booting", "boot"],
    ["boot", "boot"],
    ["batteries", "battery"],
    ["scheduled", "schedul"],
    ["schedule", "schedul"],
    ["class", "class"],
    ["bus", "bus"],
  ];
  it.each(cases)("%s → %s", (word, stemmed) => {
    expect(stem(word)).toBe(stemmed);
  });
});

describe("contentStems", () => {
  it("drops stop-words, punctuation and repeats", () => {
    expect(contentStems("I need help: my laptop won't boot, the LAPTOP!")).toEqual(["laptop", "boot"]);
  });
});

describe("pickHandoffTool", () => {
  const cases: Array<[string, string | undefined]> = [
    ["I need a refund on my invoice", "transfer_to_billing"],
    ["my laptop won't boot", "transfer_to_tech_support"],
    ["Can I move my appointment to Friday?", "transfer_to_scheduling"],
    ["who handles payments here", "transfer_to_billing"],
    ["I need tech help", "transfer_to_tech_support"],
    ["what's the weather like?", undefined],
    ["hello there, I have a question", undefined],
    ["", undefined],
  ];
  it.each(cases)("%j → %s", (message, tool) => {
    expect(pickHandoffTool(message, team)).toBe(tool);
  });

  it("prefers the tool sharing more words, and the first bound on a tie", () => {
    const tools: ToolSummary[] = [
      { name: "transfer_to_a", description: "refunds" },
      { name: "transfer_to_b", description: "refunds and invoices" },
      { name: "transfer_to_c", description: "refunds and invoices" },
    ];
    expect(pickHandoffTool("refund my invoice", tools)).toBe("transfer_to_b");
    expect(pickHandoffTool("refund please", tools)).toBe("transfer_to_a");
  });

  it("only considers handoff tools", () => {
    const tools: ToolSummary[] = [{ name: "lookup_invoice", description: "finds an invoice by number" }];
    expect(pickHandoffTool("find my invoice", tools)).toBeUndefined();
  });
});

describe("agentNameFromSystemPrompt", () => {
  const cases: Array<[string, string | undefined]> = [
    ["You are billing, the team's billing specialist.", "billing"],
    ["You are the supervisor.\nRoute each request.", "supervisor"],
    ["  you are `tech_support` — you fix computers", "tech_support"],
    ["You are **scheduling**.", "scheduling"],
    ["You are a helpful assistant.", undefined],
    ["Answer briefly.\nYou are billing.", undefined],
    ["", undefined],
  ];
  it.each(cases)("%j → %s", (prompt, name) => {
    expect(agentNameFromSystemPrompt(prompt)).toBe(name);
  });
});
