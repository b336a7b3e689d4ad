import type { Clock } from "../runtime/clock.ts";
import type { UsageBook, UsageTotals } from "./usage-book.ts";
import { usageDay } from "./usage-book.ts";
import type { UsageConfig, UsageLimit } from "./usage-config.ts";

/** Which cap a turn would go over; `sentence` is what the user reads. */
export interface LimitRefusal {
  readonly scope: "user" | "conversation";
  readonly sentence: string;
}

/**
 * The optional daily caps: tokens or cost per user and per conversation. Checked before a turn
 * runs; usage already spent counts, so the turn that crosses a cap finishes and the next is refused.
 */
export class UsageLimits {
  readonly #book: UsageBook;
  readonly #limits: UsageConfig["limits"];
  readonly #clock: Clock;

  constructor(book: UsageBook, limits: UsageConfig["limits"], clock: Clock) {
    this.#book = book;
    this.#limits = limits;
    this.#clock = clock;
  }

  get active(): boolean {
    return this.#limits.perUserPerDay !== undefined || this.#limits.perConversationPerDay !== undefined;
  }

  async refusal(userId: string, conversationKey: string): Promise<LimitRefusal | undefined> {
    const today = [usageDay(this.#clock.now())];
    const { perUserPerDay, perConversationPerDay } = this.#limits;
    if (perUserPerDay) {
      const used = await this.#book.total("user", userId, today);
      const over = overLimit(used, perUserPerDay);
      if (over)
        return {
          scope: "user",
          sentence: `You have used your daily allowance (${over}); it renews at 00:00 UTC.`,
        };
    }
    if (perConversationPerDay) {
      const used = await this.#book.total("conversation", conversationKey, today);
      const over = overLimit(used, perConversationPerDay);
      if (over)
        return {
          scope: "conversation",
          sentence: `This conversation has used its daily allowance (${over}); it renews at 00:00 UTC.`,
        };
    }
    return undefined;
  }
}

/** How the cap was reached ("50,000 tokens"), or undefined while under it. */
export function overLimit(used: UsageTotals, limit: UsageLimit): string | undefined {
  if (limit.tokens !== undefined && used.inputTokens + used.outputTokens >= limit.tokens)
    return `${limit.tokens.toLocaleString("en-US")} tokens`;
  if (limit.costUsd !== undefined && used.costUsd >= limit.costUsd) return `$${limit.costUsd.toFixed(2)}`;
  return undefined;
}
