import { describe, expect, it } from "vitest";
import { PRICE_LIST } from "./price-list.ts";
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
    ["claude-opus-4-20250514", 15],
    // Its own rate, not Opus 4's (a third of it).
    ["claude-opus-4-5", 5],
    ["anthropic:claude-opus-4-5-20251101", 5],
    ["claude-opus-4-1-20250805", 15],
    ["claude-3-5-haiku-latest", 0.8],
    ["my-local", 1],
  ])("%s costs %f per million input tokens", (model, input) => {
    expect(table.priceOf(model)?.input).toBe(input);
  });

  it.each([
    // A newer member of a priced family is not priced as its neighbour.
    "claude-opus-4-6",
    "claude-sonnet-4-7-20260101",
    "gpt-4",
    "gpt-4o-mini-tts",
    "mystery",
  ])("%s is priced as unknown, never guessed", (model) => {
    expect(table.priceOf(model)).toBeUndefined();
    expect(table.costOf(model, { inputTokens: 1, outputTokens: 1, cachedTokens: 0 })).toBeUndefined();
  });

  it("prices cached input at the cached rate", () => {
    const cost = table.costOf("gpt-4o-mini", {
      inputTokens: 1_000_000,
      outputTokens: 1_000_000,
      cachedTokens: 500_000,
    });
    expect(cost).toBeCloseTo(0.5 * 0.15 + 0.5 * 0.075 + 0.6);
  });

  it("takes configured prices over the built-in list, exact ids before prefixes (`family-*`)", () => {
    const configured = new PriceTable({
      "claude-opus-4-5": { input: 4, output: 20 },
      "claude-opus-*": { input: 99, output: 99 },
      "acme-*": { input: 7, output: 7 },
      "acme-large-*": { input: 9, output: 9 },
    });
    expect(configured.priceOf("claude-opus-4-5-20251101")?.input).toBe(4);
    // An exact built-in id still wins over a configured prefix.
    expect(configured.priceOf("claude-opus-4-1")?.input).toBe(15);
    expect(configured.priceOf("claude-opus-4-6")?.input).toBe(99);
    expect(configured.priceOf("acme-small-2")?.input).toBe(7);
    expect(configured.priceOf("acme-large-2")?.input).toBe(9);
  });

  it("says where its prices come from and when they were read", () => {
    expect(table.asOf).toBe(PRICE_LIST.asOf);
    expect(table.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Number.isNaN(Date.parse(table.asOf))).toBe(false);
    expect(table.source).toMatch(/^https:\/\//);
    for (const [model, price] of Object.entries(PRICE_LIST.models)) {
      expect(price.input, model).toBeGreaterThanOrEqual(0);
      expect(price.output, model).toBeGreaterThanOrEqual(price.input);
    }
  });
});
