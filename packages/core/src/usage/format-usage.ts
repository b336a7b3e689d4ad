import type { UsageRow, UsageTotals } from "./usage-book.ts";

export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

const number = (value: number) => value.toLocaleString("en-US");

/**
 * The cost of some calls, honest about calls to models with no price: "$0.12", "unknown" (no call
 * priced), "$0.12 + unknown" (some were).
 */
export function describeCost(totals: Pick<UsageTotals, "calls" | "costUsd" | "unpricedCalls">): string {
  const unpriced = totals.unpricedCalls ?? 0;
  if (unpriced === 0) return formatCost(totals.costUsd);
  if (unpriced >= totals.calls) return "unknown";
  return `${formatCost(totals.costUsd)} + unknown`;
}

/** "12 model calls, 3,400 tokens in (1,000 cached), 560 out, $0.0021" (or what of it is unknown). */
export function describeTotals(totals: UsageTotals): string {
  if (totals.calls === 0) return "no model calls";
  const cached = totals.cachedTokens > 0 ? ` (${number(totals.cachedTokens)} cached)` : "";
  return (
    `${number(totals.calls)} model call${totals.calls === 1 ? "" : "s"}, ` +
    `${number(totals.inputTokens)} tokens in${cached}, ${number(totals.outputTokens)} out, ${costSentence(totals)}`
  );
}

function costSentence(totals: UsageTotals): string {
  const unpriced = totals.unpricedCalls ?? 0;
  if (unpriced === 0) return formatCost(totals.costUsd);
  const calls = `${number(unpriced)} call${unpriced === 1 ? "" : "s"}`;
  return unpriced >= totals.calls
    ? "cost unknown (no price for the model)"
    : `${formatCost(totals.costUsd)} + ${calls} at an unknown price`;
}

/** A fixed-width table: one row per id, columns calls, tokens in, tokens out, cost. */
export function usageTable(title: string, rows: readonly UsageRow[]): string {
  if (rows.length === 0) return `${title}: none`;
  const header = [title, "calls", "tokens in", "tokens out", "cost"];
  const body = rows.map((row) => [
    row.id,
    number(row.calls),
    number(row.inputTokens),
    number(row.outputTokens),
    describeCost(row),
  ]);
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...body.map((line) => line[column]?.length ?? 0)),
  );
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  ");
  return [render(header), ...body.map(render)].join("\n");
}
