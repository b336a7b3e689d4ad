import type { TokenCounts } from "../steps/run-step.ts";

/** USD per million tokens. `cachedInput` defaults to `input` when a provider gives no discount. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  readonly cachedInput?: number;
}

/**
 * List prices of common models (USD per million tokens) as their providers publish them; a
 * configuration's `usage.prices` overrides or extends them. Keys match a model's name or the
 * start of it (`gpt-4o-mini-2024-07-18` is priced as `gpt-4o-mini`); the longest match wins.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  offline: { input: 0, output: 0 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 },
  "gpt-4o": { input: 2.5, output: 10, cachedInput: 1.25 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cachedInput: 0.025 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cachedInput: 0.1 },
  "gpt-4.1": { input: 2, output: 8, cachedInput: 0.5 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cachedInput: 0.005 },
  "gpt-5-mini": { input: 0.25, output: 2, cachedInput: 0.025 },
  "gpt-5": { input: 1.25, output: 10, cachedInput: 0.125 },
  "o4-mini": { input: 1.1, output: 4.4, cachedInput: 0.275 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cachedInput: 0.08 },
  "claude-haiku-4-5": { input: 1, output: 5, cachedInput: 0.1 },
  "claude-3-5-sonnet": { input: 3, output: 15, cachedInput: 0.3 },
  "claude-3-7-sonnet": { input: 3, output: 15, cachedInput: 0.3 },
  "claude-sonnet-4": { input: 3, output: 15, cachedInput: 0.3 },
  "claude-opus-4": { input: 15, output: 75, cachedInput: 1.5 },
};

export class PriceTable {
  readonly #prices: ReadonlyArray<readonly [string, ModelPrice]>;

  constructor(overrides: Readonly<Record<string, ModelPrice>> = {}) {
    // Longest name first, so `gpt-4o-mini` is found before `gpt-4o`.
    this.#prices = Object.entries({ ...DEFAULT_PRICES, ...overrides }).sort(
      ([a], [b]) => b.length - a.length,
    );
  }

  /** The price of `model` (`openai:gpt-4o-mini`, `gpt-4o-mini-2024-07-18`…), or undefined when unknown. */
  priceOf(model: string): ModelPrice | undefined {
    const name = model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
    return this.#prices.find(([key]) => name === key || name.startsWith(`${key}-`))?.[1];
  }

  /** USD for one call's tokens; undefined when the model has no price. */
  costOf(model: string, tokens: TokenCounts): number | undefined {
    const price = this.priceOf(model);
    if (!price) return undefined;
    const cached = Math.min(tokens.cachedTokens, tokens.inputTokens);
    const fresh = tokens.inputTokens - cached;
    const cachedPrice = price.cachedInput ?? price.input;
    return (fresh * price.input + cached * cachedPrice + tokens.outputTokens * price.output) / 1_000_000;
  }
}
