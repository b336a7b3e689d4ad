import type { PlaceNames } from "@switchboard/core/adapter";
import { describeTiming, type FireEntry, formatInZone, type ScheduleRecord } from "@switchboard/core/records";
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { type ConsoleDeps, OPERATOR } from "../console-deps.ts";
import type { ScheduleAction } from "../schedule-source.ts";
import { conversationHref, describePlace, formatTime } from "../views/format.ts";
import type { Html } from "../views/layout.ts";
import { render } from "../views/render.ts";

const LISTED = 200;
const FIRES_SHOWN = 10;
const ACTIONS: readonly ScheduleAction[] = ["pause", "resume", "cancel"];

const OUTCOMES: Readonly<Record<string, string>> = {
  posted: "posted",
  failed: "run failed (said so in the thread)",
  undeliverable: "could not be posted",
  dropped: "not run (paused or cancelled first)",
};

export function scheduleRoutes(app: Hono, deps: ConsoleDeps): void {
  app.get("/console/schedules", (c) => schedulesPage(c, deps));
  app.post("/console/schedules/:id/actions", (c) => act(c, deps));
}

async function schedulesPage(c: Context, deps: ConsoleDeps): Promise<Response> {
  const source = deps.schedules;
  const records = source ? await source.newest(LISTED) : [];
  const [fires, names] = await Promise.all([
    source ? Promise.all(records.map((record) => source.fires(record.id, FIRES_SHOWN))) : [],
    Promise.all(records.map((record) => deps.placeNames?.(record.home.key))),
  ]);
  const count = (status: ScheduleRecord["status"]) =>
    records.filter((record) => record.status === status).length;
  const done = c.req.query("done");
  const body = html`
<h1>Schedules</h1>
${done ? html`<p class="notice" role="status">${done}</p>` : ""}
<p class="count">${count("active")} active · ${count("paused")} paused · ${count("done") + count("cancelled")} ended</p>
${
  records.length === 0
    ? html`<p>No schedules. People ask an agent for one in words ("remind me tomorrow at 9…", "every Monday at 8, summarise this channel"); operators declare them under <code>schedules.declared</code> in switchboard.yaml.</p>`
    : html`<div class="table-wrap"><table class="schedules">
  <thead><tr><th scope="col">schedule</th><th scope="col">when</th><th scope="col">next run</th><th scope="col">status</th><th scope="col">place</th><th scope="col">runs</th><th scope="col">actions</th></tr></thead>
  <tbody>${records.map((record, index) => scheduleRow(record, fires[index] ?? [], names[index]))}</tbody>
</table></div>`
}`;
  return render(c, { title: "Schedules", section: "schedules", topics: ["schedules", "requests"], body });
}

function scheduleRow(
  record: ScheduleRecord,
  fires: readonly FireEntry[],
  names: PlaceNames | undefined,
): Html {
  const { platform, place } = describePlace(record.home.key, names);
  const next =
    record.status === "active" && record.nextFireAt !== undefined
      ? html`${formatInZone(record.nextFireAt, record.timeZone)}<div class="sub">${formatTime(record.nextFireAt)} UTC</div>`
      : html`<span class="sub">—</span>`;
  return html`<tr class="schedule status-${record.status}" data-schedule-id="${record.id}">
  <td><strong>${record.title}</strong><div class="sub">${record.id} · ${record.source === "config" ? "declared in switchboard.yaml" : `made by ${record.ownerId}`}${record.digest ? " · digest" : ""}</div></td>
  <td>${describeTiming(record.timing, record.timeZone, record.nextFireAt ?? record.lastFireAt)}</td>
  <td>${next}</td>
  <td><span class="badge">${record.status}</span>${record.changedBy && record.status !== "active" ? html`<div class="sub">by ${record.changedBy}</div>` : ""}${record.reason ? html`<div class="error">${record.reason}</div>` : ""}</td>
  <td><a href="${conversationHref(record.home.key)}">${platform} · ${place}</a></td>
  <td>${record.fireCount}${record.skippedCount > 0 ? html` <span class="sub">(${record.skippedCount} skipped)</span>` : ""}${fires.length > 0 ? firesView(record, fires) : ""}</td>
  <td class="schedule-actions">${actionsFor(record)}</td>
</tr>`;
}

function firesView(record: ScheduleRecord, fires: readonly FireEntry[]): Html {
  return html`<details><summary>last ${fires.length === 1 ? "run" : `${fires.length} runs`}</summary><ol class="fires">
  ${fires.map(
    (fire) =>
      html`<li>${formatInZone(fire.dueAt, record.timeZone, false)} · ${fire.outcome ? (OUTCOMES[fire.outcome] ?? fire.outcome) : "queued"}${fire.firedAt - fire.dueAt > 60_000 ? html` · <span class="sub">${Math.round((fire.firedAt - fire.dueAt) / 60_000)} min late</span>` : ""}${fire.skipped ? html` · <span class="sub">${fire.skipped} skipped before it</span>` : ""}${fire.runId ? html` · <a href="${conversationHref(record.home.key)}#run-${fire.runId}">its run</a>` : ""}</li>`,
  )}
</ol></details>`;
}

function actionsFor(record: ScheduleRecord): Html {
  const allowed = ACTIONS.filter((action) =>
    action === "resume"
      ? record.status === "paused"
      : record.status === "active" || (action === "cancel" && record.status === "paused"),
  );
  return html`${allowed.map(
    (action) =>
      html`<form method="post" action="/console/schedules/${encodeURIComponent(record.id)}/actions"><input type="hidden" name="action" value="${action}"><button type="submit">${action[0]?.toUpperCase()}${action.slice(1)}</button></form>`,
  )}`;
}

async function act(c: Context, deps: ConsoleDeps): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const form = await c.req.parseBody();
  const action = String(form.action ?? "");
  if (action !== "pause" && action !== "resume" && action !== "cancel")
    return c.text("400: the action is pause, resume or cancel", 400);
  if (!deps.schedules) return c.text("404: schedules are not available in this process", 404);
  const sentence = await deps.schedules.control(id, action, OPERATOR.displayName);
  deps.feed.publish({ topic: "schedules" });
  return c.redirect(`/console/schedules?done=${encodeURIComponent(sentence)}`, 303);
}
