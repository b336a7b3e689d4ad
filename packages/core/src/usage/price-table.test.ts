import { describe, expect, it } from "vitest";
import { PriceTable } from "./price-table.ts";

describe("PriceTable", () => {
  const table = new PriceTable({ "my-local": { input: 1, output: 2 } });
  it.each([
    ["gpt-4o-mini", 0.15],
    ["openai:gpt-4o-mini", 0.15],
    ["gpt-4o-mini-2024-07-18", 0.15],
    ["gpt-4o", 2.5],
    ["gpt-4o-2024-11-20", 2.5],
    ["claude-sonnet-4-20250514", 3],
    ["my-local", 1],
  ])("%s costs %f per million input tokens", (model, input) => {
    expect(table.priceOf(model)?.input).toBe(input);
  });

  it("prices cached input at the cached rate and knows no price for unknown models", () => {
    const cost = table.costOf("gpt-4o-mini", {
      inputTokens: 1_000_000,
      outputTokens: 1_000_000,
      cachedTokens: 500_000,
    });
    expect(cost).toBeCloseTo(0.5 * 0.15 + 0.5 * 0.075 + 0.6);
    expect(table.costOf("gpt-4", { inputTokens: 1, outputTokens: 1, cachedTokens: 0 })).toBeUndefined();
    expect(table.costOf("mystery", { inputTokens: 1, outputTokens: 1, cachedTokens: 0 })).toBeUndefined();
  });
});
