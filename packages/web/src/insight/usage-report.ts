/** Tokens and cost of one slice (a day, an agent, a model, a conversation, a user). */
export interface UsageRow {
  readonly label: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** USD of the priced calls. */
  readonly costUsd: number;
  readonly calls: number;
  /** Calls to a model with no price: the cost is unknown for them (shown as such). */
  readonly unpricedCalls: number;
}

export interface UsageReport {
  /** One row per day (`2026-11-23`), oldest first, days without use included as zeros. */
  readonly days: readonly UsageRow[];
  readonly byAgent: readonly UsageRow[];
  readonly byModel: readonly UsageRow[];
  readonly topConversations: readonly UsageRow[];
  readonly topUsers: readonly UsageRow[];
}

/** Where usage comes from: the usage roll-ups. */
export interface UsageSource {
  /** Usage of the last `days` days (today included), in UTC days. */
  report(days: number): Promise<UsageReport>;
}

export const EMPTY_USAGE: UsageReport = {
  days: [],
  byAgent: [],
  byModel: [],
  topConversations: [],
  topUsers: [],
};
