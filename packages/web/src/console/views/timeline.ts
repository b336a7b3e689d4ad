import { html } from "hono/html";
import type { RunStepView, TimelineRun } from "../../insight/run-timeline.ts";
import { formatDuration, formatNumber, formatTime } from "./format.ts";
import type { Html } from "./layout.ts";

const TRIGGERS: Readonly<Record<string, string>> = {
  user_message: "user message",
  tools_attached: "tools attached",
  approval: "approval",
  webhook: "webhook",
  retry: "retry",
  schedule: "scheduled run",
};

/** Each run with its trigger, status and steps: model calls, tool calls, handoffs, errors. */
export function timelineView(runs: readonly TimelineRun[]): Html {
  if (runs.length === 0) return html`<p>No runs recorded for this conversation yet.</p>`;
  return html`<ol class="timeline" aria-label="Run timeline">
  ${runs.map(
    ({ request, run, steps }) => html`<li class="run status-${run.status}" id="run-${run.runId}">
    <div class="run-head"><strong>${TRIGGERS[run.triggeredBy] ?? run.triggeredBy}</strong>
      <span class="badge">${run.status}</span>
      <span class="sub">${formatTime(run.startedAt)} · ${formatDuration(run.endedAt === undefined ? undefined : run.endedAt - run.startedAt)} · request ${request.id.slice(0, 12)}…${run.parentRunId ? ` · after ${run.parentRunId.slice(0, 12)}…` : ""}</span></div>
    ${run.error ? html`<p class="error">Error: ${run.error}</p>` : ""}
    ${request.decision && run.triggeredBy === "approval" ? html`<p class="sub">${request.decision.approved ? "approved" : "denied"} by ${request.decision.by} (${request.decision.via})</p>` : ""}
    ${steps.length === 0 ? html`<p class="sub">No steps recorded.</p>` : html`<ul class="steps">${steps.map(stepView)}</ul>`}
  </li>`,
  )}
</ol>`;
}

function stepView(step: RunStepView): Html {
  switch (step.kind) {
    case "model":
      return html`<li class="step model">model call${step.agent ? ` · ${step.agent}` : ""}${step.model ? ` · ${step.model}` : ""} · ${formatDuration(step.latencyMs)}${tokens(step.inputTokens, step.outputTokens)}${step.error ? html` · <span class="error">error: ${step.error}</span>` : ""}</li>`;
    case "tool":
      return html`<li class="step tool">tool call · <code>${step.tool}</code>${step.agent ? ` by ${step.agent}` : ""} · ${formatDuration(step.latencyMs)}${step.error ? html` · <span class="error">error: ${step.error}</span>` : ""}</li>`;
    case "handoff":
      return html`<li class="step handoff">handoff${step.from ? ` from ${step.from}` : ""} → <strong>${step.to}</strong></li>`;
    case "delivery":
      return html`<li class="step delivery">delivered${step.chars === undefined ? "" : ` · ${formatNumber(step.chars)} characters`}</li>`;
    case "error":
      return html`<li class="step error">error: ${step.message}</li>`;
  }
}

function tokens(input: number | undefined, output: number | undefined): string {
  if (input === undefined && output === undefined) return "";
  return ` · ${formatNumber(input ?? 0)} in / ${formatNumber(output ?? 0)} out tokens`;
}
