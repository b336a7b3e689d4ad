import type { TokenCounts } from "../steps/run-step.ts";
import { type ModelPrice, PRICE_LIST, type PriceList } from "./price-list.ts";

export type { ModelPrice, PriceList } from "./price-list.ts";

/** A provider's dated or moving snapshot of a model id: `-20251101`, `-2024-07-18`, `-latest`, `@20251101`. */
const SNAPSHOT = /^(.+?)(?:-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|@\d{8})$/;

/**
 * What a model costs, looked up in order: its exact id, the id a dated snapshot names, the longest
 * prefix; else unknown (undefined), never a neighbour's price. Configured prices (`usage.prices`:
 * exact ids, and prefixes written `family-*`) win over the built-in list at each step.
 */
export class PriceTable {
  readonly source: string;
  readonly asOf: string;
  readonly #models: ReadonlyMap<string, ModelPrice>;
  readonly #prefixes: ReadonlyArray<readonly [string, ModelPrice]>;

  constructor(overrides: Readonly<Record<string, ModelPrice>> = {}, list: PriceList = PRICE_LIST) {
    this.source = list.source;
    this.asOf = list.asOf;
    const configured = Object.entries(overrides);
    const models = new Map(Object.entries(list.models));
    const prefixes = new Map(Object.entries(list.prefixes));
    for (const [key, price] of configured) {
      if (key.endsWith("*")) prefixes.set(key.slice(0, -1), price);
      else models.set(key, price);
    }
    this.#models = models;
    // Longest first, so `gpt-4o-mini` is found before `gpt-4o`.
    this.#prefixes = [...prefixes].sort(([a], [b]) => b.length - a.length);
  }

  /** The price of `model` (`openai:gpt-4o-mini`, `gpt-4o-mini-2024-07-18`…), or undefined when unknown. */
  priceOf(model: string): ModelPrice | undefined {
    const name = model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
    const exact = this.#models.get(name);
    if (exact) return exact;
    const snapshotOf = SNAPSHOT.exec(name)?.[1];
    const snapshot = snapshotOf === undefined ? undefined : this.#models.get(snapshotOf);
    if (snapshot) return snapshot;
    return this.#prefixes.find(([prefix]) => name.startsWith(prefix))?.[1];
  }

  /** USD for one call's tokens; undefined when the model has no price (unknown, not free). */
  costOf(model: string, tokens: TokenCounts): number | undefined {
    const price = this.priceOf(model);
    if (!price) return undefined;
    const cached = Math.min(tokens.cachedTokens, tokens.inputTokens);
    const fresh = tokens.inputTokens - cached;
    const cachedPrice = price.cachedInput ?? price.input;
    return (fresh * price.input + cached * cachedPrice + tokens.outputTokens * price.output) / 1_000_000;
  }
}
