import { daysBetween } from "@switchboard/core/host";
import type { UsageRow as BookRow, UsageBook, UsageDimension } from "@switchboard/core/records";
import type { UsageReport, UsageRow, UsageSource } from "./usage-report.ts";

const DAY_MS = 86_400_000;
const TOP = 10;

function row(label: string, totals: Omit<BookRow, "id">): UsageRow {
  return {
    label,
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    costUsd: totals.costUsd,
    calls: totals.calls,
    unpricedCalls: totals.unpricedCalls ?? 0,
  };
}

/**
 * The usage roll-ups as the usage page's report. A day's total is the sum over its agents: every
 * model call is attributed to exactly one agent, so nothing is counted twice.
 */
export function usageFromBook(book: UsageBook, now: () => number = Date.now): UsageSource {
  const top = async (dimension: UsageDimension, days: readonly string[]) =>
    (await book.top(dimension, days, TOP)).map((entry) => row(entry.id, entry));
  return {
    async report(dayCount): Promise<UsageReport> {
      const days = daysBetween(now() - (dayCount - 1) * DAY_MS, now());
      const perDay: UsageRow[] = [];
      for (const day of days) {
        const agents = await book.top("agent", [day], Number.MAX_SAFE_INTEGER);
        perDay.push(
          agents.reduce(
            (sum, agent) => ({
              label: day,
              inputTokens: sum.inputTokens + agent.inputTokens,
              outputTokens: sum.outputTokens + agent.outputTokens,
              costUsd: sum.costUsd + agent.costUsd,
              calls: sum.calls + agent.calls,
              unpricedCalls: sum.unpricedCalls + (agent.unpricedCalls ?? 0),
            }),
            row(day, { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 0, cachedTokens: 0 }),
          ),
        );
      }
      return {
        days: perDay,
        byAgent: await top("agent", days),
        byModel: await top("model", days),
        topConversations: await top("conversation", days),
        topUsers: await top("user", days),
      };
    },
  };
}
