import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { UsageRow } from "../../insight/usage-report.ts";
import type { ConsoleDeps } from "../console-deps.ts";
import { barChart } from "../views/bar-chart.ts";
import { conversationHref, describePlace, formatNumber, formatUsageCost } from "../views/format.ts";
import { render } from "../views/render.ts";

const DAY_CHOICES = [1, 7, 30] as const;

export function usageRoutes(app: Hono, deps: ConsoleDeps): void {
  app.get("/console/usage", (c) => usagePage(c, deps));
}

async function usagePage(c: Context, deps: ConsoleDeps): Promise<Response> {
  const asked = Number(c.req.query("days") ?? 7);
  const days = DAY_CHOICES.find((choice) => choice === asked) ?? 7;
  const report = await deps.usage.report(days);
  const total = report.days.reduce(
    (sum, day) => ({
      tokens: sum.tokens + day.inputTokens + day.outputTokens,
      costUsd: sum.costUsd + day.costUsd,
      calls: sum.calls + day.calls,
      unpricedCalls: sum.unpricedCalls + day.unpricedCalls,
    }),
    { tokens: 0, costUsd: 0, calls: 0, unpricedCalls: 0 },
  );
  const body = html`
<h1>Usage</h1>
<nav class="filters" aria-label="Period">${DAY_CHOICES.map((choice) => html`<a href="/console/usage?days=${choice}"${choice === days ? html` aria-current="page"` : ""}>last ${choice === 1 ? "day" : `${choice} days`}</a>`)}</nav>
<p class="count">${formatNumber(total.tokens)} tokens · ${formatUsageCost(total)} in the last ${days === 1 ? "day" : `${days} days`}</p>
${barChart(
  report.days.map((day) => ({
    label: day.label.slice(5),
    value: day.inputTokens + day.outputTokens,
    title: `${day.label}: ${formatNumber(day.inputTokens + day.outputTokens)} tokens, ${formatUsageCost(day)}`,
  })),
  "Tokens per day",
)}
<div class="grid">
  ${usageTable("Per day", report.days)}
  ${usageTable("Per agent", report.byAgent)}
  ${usageTable("Per model", report.byModel)}
  ${usageTable("Top conversations", report.topConversations, (key) => html`<a href="${conversationHref(key)}">${describePlace(key).platform} · ${describePlace(key).place}</a>`)}
  ${usageTable("Top users", report.topUsers)}
</div>`;
  return render(c, { title: "Usage", section: "usage", topics: ["requests"], body });
}

function usageTable(title: string, rows: readonly UsageRow[], label: (id: string) => unknown = (id) => id) {
  return html`<section><h2>${title}</h2><div class="table-wrap"><table>
  <thead><tr><th scope="col">${title.startsWith("Per ") ? title.slice(4) : "name"}</th><th scope="col">calls</th><th scope="col">tokens in</th><th scope="col">tokens out</th><th scope="col">cost</th></tr></thead>
  <tbody>${rows.length === 0 ? html`<tr><td colspan="5">No usage recorded.</td></tr>` : ""}
  ${rows.map((row) => html`<tr><td>${label(row.label)}</td><td class="num">${formatNumber(row.calls)}</td><td class="num">${formatNumber(row.inputTokens)}</td><td class="num">${formatNumber(row.outputTokens)}</td><td class="num">${formatUsageCost(row)}</td></tr>`)}
  </tbody></table></div></section>`;
}
