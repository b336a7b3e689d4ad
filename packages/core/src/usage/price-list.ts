/** USD per million tokens. `cachedInput` defaults to `input` when a provider gives no discount. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  readonly cachedInput?: number;
}

/** Prices as data: where they were read, when, and what they are. */
export interface PriceList {
  /** Where the prices were read. */
  readonly source: string;
  /** The day they were read (`YYYY-MM-DD`). */
  readonly asOf: string;
  /** Exact model ids (without the provider, `claude-opus-4-5`). */
  readonly models: Readonly<Record<string, ModelPrice>>;
  /** Id prefixes priced as one family; the longest match wins, after every exact id. */
  readonly prefixes: Readonly<Record<string, ModelPrice>>;
}

/**
 * The built-in list prices (USD per million tokens) as the providers publish them, and the day
 * they were read. Data, not logic: a new model or a price change is an edit here (or `usage.prices`
 * in a configuration, which wins). A model named nowhere here is priced as unknown, never guessed:
 * a family's newer model often costs something else (Claude Opus 4.5 costs a third of Opus 4).
 *
 * `models` are exact ids; a dated snapshot of one (`claude-opus-4-5-20251101`,
 * `gpt-4o-2024-11-20`) is priced as the id it names. `prefixes` price every id that starts with
 * them, for families the provider prices as one; none by default.
 */
export const PRICE_LIST: PriceList = {
  source: "https://www.anthropic.com/pricing, https://openai.com/api/pricing",
  asOf: "2025-11-24",
  models: {
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
    "claude-sonnet-4-5": { input: 3, output: 15, cachedInput: 0.3 },
    "claude-opus-4": { input: 15, output: 75, cachedInput: 1.5 },
    "claude-opus-4-1": { input: 15, output: 75, cachedInput: 1.5 },
    "claude-opus-4-5": { input: 5, output: 25, cachedInput: 0.5 },
  },
  prefixes: {},
};
