import type { TaskRecord, TaskStatus, TaskStepEntry } from "@switchboard/core/records";
import { TASK_STATUSES } from "@switchboard/core/records";
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { ConsoleDeps, TaskSource } from "../console-deps.ts";
import {
  conversationHref,
  describePlace,
  formatAge,
  formatCost,
  formatDuration,
  formatNumber,
  formatTime,
  formatUsageCost,
} from "../views/format.ts";
import { render } from "../views/render.ts";

const LISTED = 200;
const CONTROLS = ["pause", "resume", "cancel"] as const;

/** Background tasks: the newest first, filtered by status; one task's steps, and its controls. */
export function taskRoutes(app: Hono, deps: ConsoleDeps): void {
  const tasks = deps.tasks;
  if (!tasks) return;
  app.get("/console/tasks", (c) => tasksPage(c, tasks));
  app.get("/console/tasks/:id", (c) => taskPage(c, tasks));
  app.post("/console/tasks/:id/control", (c) => control(c, deps, tasks));
}

async function tasksPage(c: Context, tasks: TaskSource): Promise<Response> {
  const asked = c.req.query("status");
  const status = TASK_STATUSES.find((candidate) => candidate === asked);
  const all = await tasks.newest(LISTED);
  const shown = status ? all.filter((task) => task.status === status) : all;
  const now = Date.now();
  const body = html`
<h1>Tasks</h1>
<nav class="filters" aria-label="Status">
  <a href="/console/tasks"${status ? "" : html` aria-current="page"`}>all</a>
  ${TASK_STATUSES.map((choice) => html`<a href="/console/tasks?status=${choice}"${choice === status ? html` aria-current="page"` : ""}>${choice}</a>`)}
</nav>
<p class="count">${shown.length} ${status ?? "kept"} task${shown.length === 1 ? "" : "s"}</p>
${shown.length === 0 ? html`<p>No background tasks${status ? ` ${status}` : ""}.</p>` : ""}
<ol class="tasks">
${shown.map(
  (task) => html`<li class="task status-${task.status}" data-task-id="${task.id}">
  <div class="run-head"><a href="/console/tasks/${encodeURIComponent(task.id)}"><strong>${task.id}</strong> ${task.title}</a>
    <span class="sub">${task.status} · step ${task.iteration} of ${task.maxIterations} · started ${formatAge(now - task.createdAt)} ago</span></div>
  <p>${placeLink(task)} · agent <strong>${task.agent}</strong> · asked by ${task.requesterId} · ${formatNumber(task.inputTokens + task.outputTokens)} tokens · ${taskCost(task)}</p>
</li>`,
)}
</ol>`;
  return render(c, { title: "Tasks", section: "tasks", topics: ["tasks"], pollSeconds: 5, body });
}

async function taskPage(c: Context, tasks: TaskSource): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const task = await tasks.get(id);
  if (!task) return c.text(`404: no task ${id} (it may have been deleted after its retention)`, 404);
  const steps = await tasks.steps(task);
  const done = c.req.query("done");
  const now = Date.now();
  const body = html`
<h1>Task ${task.id}: ${task.title}</h1>
${done ? html`<p class="notice" role="status">${done}</p>` : ""}
<dl class="facts">
  <dt>status</dt><dd class="status-${task.status}">${statusLine(task, now)}</dd>
  <dt>thread</dt><dd>${placeLink(task)}</dd>
  <dt>agent</dt><dd>${task.agent}</dd>
  <dt>asked by</dt><dd>${task.requesterId}</dd>
  <dt>steps</dt><dd>${task.iteration} of at most ${task.maxIterations}</dd>
  <dt>started</dt><dd>${formatTime(task.createdAt)}</dd>
  <dt>ended</dt><dd>${formatTime(task.finishedAt)}</dd>
  <dt>tokens</dt><dd>${formatNumber(task.inputTokens)} in · ${formatNumber(task.outputTokens)} out · ${taskCost(task)}</dd>
  <dt>tools</dt><dd>${task.tools.length > 0 ? task.tools.join(", ") : "none"}</dd>
</dl>
<details><summary>Instructions</summary><pre class="instructions">${task.instructions}</pre></details>
${task.result ? html`<section><h2>Result</h2><pre class="result">${task.result}</pre></section>` : ""}
${controls(task)}
<section><h2>Steps</h2>
${steps.length === 0 ? html`<p>No step has finished yet.</p>` : ""}
<ol class="timeline task-steps">
${steps.map(stepView)}
</ol></section>`;
  return render(c, { title: `Task ${task.id}`, section: "tasks", topics: ["tasks"], pollSeconds: 5, body });
}

function controls(task: TaskRecord) {
  if (task.status === "completed" || task.status === "failed" || task.status === "cancelled") return "";
  const action = `/console/tasks/${encodeURIComponent(task.id)}/control`;
  return html`<section><h2>Steer</h2>
<form method="post" action="${action}" class="actions">
  ${CONTROLS.filter((name) => (name === "resume") === (task.status === "paused")).map(
    (name) =>
      html`<button type="submit" name="action" value="${name}">${name[0]?.toUpperCase()}${name.slice(1)}</button>`,
  )}
</form>
<form method="post" action="${action}" class="steer">
  <input type="hidden" name="action" value="steer">
  <label for="guidance">Guidance for its next step</label>
  <textarea id="guidance" name="guidance" rows="2" required></textarea>
  <button type="submit">Steer</button>
</form></section>`;
}

/** A task's cost, where steps on a model with no price are unknown (never shown as free). */
function taskCost(task: TaskRecord): string {
  return formatUsageCost({
    calls: task.iteration,
    costUsd: task.costUsd,
    unpricedCalls: task.unpricedSteps ?? 0,
  });
}

function stepView(step: TaskStepEntry) {
  return html`<li class="step">
  <div class="run-head"><strong>step ${step.iteration}</strong>
    <span class="sub">${formatTime(step.at)} · ${formatDuration(step.latencyMs)} · ${formatNumber(step.inputTokens + step.outputTokens)} tokens${step.unpriced ? " · cost unknown" : step.costUsd > 0 ? html` · ${formatCost(step.costUsd)}` : ""}</span></div>
  ${step.guidance.map((guidance) => html`<p class="guidance">${guidance}</p>`)}
  ${step.toolCalls.map((call) => html`<p class="tool ${call.status}"><code>${call.name}(${call.args})</code> → ${call.result}</p>`)}
  ${step.text ? html`<p class="said">${step.text}</p>` : ""}
  ${step.error ? html`<p class="error">${step.error}</p>` : ""}
</li>`;
}

function statusLine(task: TaskRecord, now: number): string {
  const since = task.lastProgressAt ?? task.updatedAt;
  const extra: Partial<Record<TaskStatus, string>> = {
    paused: `by ${task.changedBy ?? "someone"}`,
    waiting: `${task.lastError ?? ""}; next try ${task.retryAt ? `in ${formatAge(task.retryAt - now)}` : "soon"}`,
    failed: task.lastError ?? "",
    cancelled: task.lastError ?? "",
    running: `last progress ${formatAge(now - since)} ago`,
  };
  const detail = extra[task.status];
  return detail ? `${task.status} — ${detail}` : task.status;
}

function placeLink(task: TaskRecord) {
  const { platform, place } = describePlace(task.home.key);
  return html`<a href="${conversationHref(task.home.key)}">${platform} · ${place}</a>`;
}

async function control(c: Context, deps: ConsoleDeps, tasks: TaskSource): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const form = await c.req.parseBody();
  const action = String(form.action ?? "");
  if (action !== "pause" && action !== "resume" && action !== "cancel" && action !== "steer")
    return c.text("400: choose pause, resume, cancel or steer", 400);
  const sentence = await tasks.control(id, action, String(form.guidance ?? ""));
  deps.feed.publish({ topic: "tasks" });
  return c.redirect(`/console/tasks/${encodeURIComponent(id)}?done=${encodeURIComponent(sentence)}`, 303);
}
