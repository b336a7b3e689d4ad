import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { HealthReport } from "../../health/health-report.ts";
import type { ConsoleDeps } from "../console-deps.ts";
import { conversationHref, formatAge, formatTime } from "../views/format.ts";
import { render } from "../views/render.ts";

const STATE_LABELS = {
  connected: "connected",
  unreachable: "UNREACHABLE",
  unchecked: "not checked",
} as const;

export function healthRoutes(app: Hono, deps: ConsoleDeps): void {
  app.get("/console/health", (c) => healthPage(c, deps));
}

async function healthPage(c: Context, deps: ConsoleDeps): Promise<Response> {
  const report = await deps.health();
  const body = html`
<h1>Health</h1>
<p class="count">version ${report.version} · up ${formatAge(report.now - report.startedAt)} (since ${formatTime(report.startedAt)})</p>
<section><h2>Platforms</h2><div class="table-wrap"><table>
  <thead><tr><th scope="col">Platform</th><th scope="col">State</th><th scope="col">Last event</th><th scope="col">Checked</th></tr></thead>
  <tbody>${report.platforms.map(
    (platform) => html`<tr class="state-${platform.state}" data-platform="${platform.platform}">
    <td>${platform.platform}</td>
    <td><strong>${STATE_LABELS[platform.state]}</strong>${platform.detail ? html`<div class="sub">${platform.detail}</div>` : ""}</td>
    <td>${platform.lastEventAt ? html`${formatTime(platform.lastEventAt)} <span class="sub">(${formatAge(report.now - platform.lastEventAt)} ago)</span>` : "none yet"}</td>
    <td>${formatTime(platform.checkedAt)}</td></tr>`,
  )}</tbody></table></div></section>
<section><h2>Queues</h2>
${
  report.workQueue
    ? html`<p class="count" data-figure="work-queue">Work queue (BullMQ drain jobs): <strong>${report.workQueue.waiting}</strong> waiting · <strong>${report.workQueue.active}</strong> active · <strong>${report.workQueue.delayed}</strong> delayed · <strong>${report.workQueue.failed}</strong> failed</p>`
    : ""
}
${
  report.queues.length === 0
    ? html`<p>All conversation queues are empty.</p>`
    : html`<div class="table-wrap"><table>
  <thead><tr><th scope="col">Conversation</th><th scope="col">Waiting items</th><th scope="col">Oldest</th></tr></thead>
  <tbody>${report.queues.map((queue) => html`<tr><td><a href="${conversationHref(queue.key)}">${queue.key}</a></td><td class="num">${queue.depth}</td><td>${queue.oldestAgeMs === undefined ? "—" : formatAge(queue.oldestAgeMs)}</td></tr>`)}</tbody></table></div>`
}
</section>
${capacitySection(report)}
<section><h2>Running turns</h2>
<p class="count">Lock waits: <strong data-figure="lock-waits">${report.lockWaits}</strong> (times this process found a conversation locked by another instance)</p>
${report.runningTurns.length === 0 ? html`<p>No turn is running in this process.</p>` : html`<ul>${report.runningTurns.map((turn) => html`<li><a href="${conversationHref(turn.key)}">${turn.key}</a> for ${formatAge(report.now - turn.since)}</li>`)}</ul>`}
</section>
<section><h2>Recent warnings and errors</h2>
${report.recentProblems.length === 0 ? html`<p>None since start.</p>` : html`<ol class="problems">${report.recentProblems.map((problem) => html`<li><strong>${problem.level.toUpperCase()}</strong> <span class="sub">${formatTime(problem.at)}</span> ${problem.message}${problem.detail ? html`<div class="sub">${problem.detail}</div>` : ""}</li>`)}</ol>`}
</section>`;
  return render(c, { title: "Health", section: "health", topics: ["health"], body });
}

/** Turns in progress and what limits them: the ceiling, the CPU slots, each model endpoint. */
function capacitySection(report: HealthReport) {
  const { capacity } = report;
  return html`<section><h2>Capacity</h2>
<p class="count" data-figure="turns">Turns in progress: <strong>${capacity.turnsInProgress}</strong> of at most ${capacity.maxTurns} (engine.maxConcurrentTurns) · waiting to start: <strong data-figure="waiting-to-start">${capacity.waitingToStart}</strong></p>
<p class="count" data-figure="cpu">Computing now: <strong>${capacity.cpuSlots.inUse}</strong> of ${capacity.cpuSlots.limit} CPU slots (${capacity.cpuSlots.waiting} waiting) · event loop delay p99 <strong>${Math.round(capacity.eventLoop.delayP99Ms)} ms</strong>, busy ${Math.round(capacity.eventLoop.utilization * 100)} % — turns waiting on a model or a tool hold no slot</p>
${
  report.modelEndpoints.length === 0
    ? html`<p>No model endpoint called yet.</p>`
    : html`<div class="table-wrap"><table>
  <thead><tr><th scope="col">Model endpoint</th><th scope="col">Limit</th><th scope="col">In flight</th><th scope="col">Waiting</th><th scope="col">429 / overloaded / timeouts</th></tr></thead>
  <tbody>${report.modelEndpoints.map(
    (
      endpoint,
    ) => html`<tr data-endpoint="${endpoint.endpoint}"><td>${endpoint.endpoint}${endpoint.pausedUntil === undefined ? "" : html`<div class="sub">paused by the provider's Retry-After for ${formatAge(endpoint.pausedUntil - report.now)}</div>`}</td>
    <td class="num">${endpoint.limit}</td><td class="num">${endpoint.inFlight}</td><td class="num">${endpoint.queued}</td>
    <td class="num">${endpoint.congestion.rate_limited} / ${endpoint.congestion.overloaded} / ${endpoint.congestion.timeout}</td></tr>`,
  )}</tbody></table></div>`
}
</section>`;
}
