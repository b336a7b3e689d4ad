import { NotAwaitingApprovalError, type RequestRecord, UnknownRequestError } from "@switchboard/core/records";
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { type ConsoleDeps, OPERATOR } from "../console-deps.ts";
import { conversationHref, describePlace, formatAge, formatTime } from "../views/format.ts";
import { render } from "../views/render.ts";

const STATUS_LABELS: Readonly<Record<string, string>> = {
  active: "running",
  awaiting_approval: "awaiting approval",
  awaiting_external: "awaiting an external result",
};

export function requestRoutes(app: Hono, deps: ConsoleDeps): void {
  app.get("/console/requests", (c) => requestsPage(c, deps));
  app.post("/console/requests/:id/decision", (c) => decide(c, deps));
  app.post("/console/handoffs/release", (c) => releaseHandoff(c, deps));
}

async function requestsPage(c: Context, deps: ConsoleDeps): Promise<Response> {
  const open = await deps.requests.openRequests();
  const now = Date.now();
  const done = c.req.query("done");
  const body = html`
<h1>Requests</h1>
${done ? html`<p class="notice" role="status">${done}</p>` : ""}
<p class="count">${open.length} open</p>
${open.length === 0 ? html`<p>Nothing is running or waiting.</p>` : ""}
<ol class="requests">
${open.map((request) => requestView(request, now))}
</ol>
${await handoffsView(deps, now)}`;
  return render(c, { title: "Requests", section: "requests", topics: ["requests"], body });
}

function requestView(request: RequestRecord, now: number) {
  const { platform, place } = describePlace(request.conversationKey);
  return html`<li class="request status-${request.status}" data-request-id="${request.id}">
  <div class="run-head"><strong>${STATUS_LABELS[request.status] ?? request.status}</strong>
    <span class="sub">for ${formatAge(now - request.waitingSince)} · opened ${formatTime(request.createdAt)} · ${request.id}</span></div>
  <p><a href="${conversationHref(request.conversationKey)}">${platform} · ${place}</a>${request.agent ? html` · agent <strong>${request.agent}</strong>` : ""}</p>
  ${
    request.approval
      ? html`<p class="approval"><strong>${request.approval.agent}</strong> wants to run <code>${request.approval.tool}</code> with <code>${JSON.stringify(request.approval.args)}</code></p>`
      : ""
  }
  <ul class="steps">${request.runs.map((run) => html`<li>${run.triggeredBy.replace("_", " ")} · ${run.status} · ${formatTime(run.startedAt)}${run.error ? html` · <span class="error">${run.error}</span>` : ""}</li>`)}</ul>
  ${
    request.status === "awaiting_approval"
      ? html`<form method="post" action="/console/requests/${encodeURIComponent(request.id)}/decision" class="actions">
    <button type="submit" name="decision" value="approve">Approve</button>
    <button type="submit" name="decision" value="deny">Deny</button>
  </form>`
      : ""
  }
</li>`;
}

async function decide(c: Context, deps: ConsoleDeps): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const form = await c.req.parseBody();
  const decision = String(form.decision ?? "");
  if (decision !== "approve" && decision !== "deny") return c.text("400: decide approve or deny", 400);
  const back = (message: string) => c.redirect(`/console/requests?done=${encodeURIComponent(message)}`, 303);
  try {
    await deps.decide(id, { approved: decision === "approve", by: OPERATOR.displayName });
  } catch (error) {
    if (error instanceof UnknownRequestError) return back(`No request ${id}: it may have been cleaned up.`);
    if (error instanceof NotAwaitingApprovalError)
      return back("Already decided, superseded or closed: nothing changed.");
    throw error;
  }
  deps.feed.publish({ topic: "requests" });
  return back(
    decision === "approve"
      ? "Approved — the run continues in its thread."
      : "Denied — that action will not run.",
  );
}

async function handoffsView(deps: ConsoleDeps, now: number) {
  const handoffs = (await deps.handoffs?.open()) ?? [];
  return html`<section class="handoffs"><h2>With a person</h2>
${handoffs.length === 0 ? html`<p>No thread is with a person.</p>` : ""}
<ol class="requests">
${handoffs.map((handoff) => {
  const { platform, place } = describePlace(handoff.key);
  return html`<li class="handoff" data-key="${handoff.key}">
  <div class="run-head"><strong>${handoff.reason}</strong>
    <span class="sub">for ${formatAge(now - handoff.since)} · asked by ${handoff.by} · back to the bot at ${formatTime(handoff.releaseAt)}</span></div>
  <p><a href="${conversationHref(handoff.key)}">${platform} · ${place}</a></p>
  <form method="post" action="/console/handoffs/release" class="actions">
    <input type="hidden" name="key" value="${handoff.key}">
    <button type="submit">Hand back to the bot</button>
  </form>
</li>`;
})}
</ol></section>`;
}

async function releaseHandoff(c: Context, deps: ConsoleDeps): Promise<Response> {
  const form = await c.req.parseBody();
  const key = String(form.key ?? "");
  if (!deps.handoffs || key === "") return c.text("400: which thread?", 400);
  const sentence = await deps.handoffs.release(key);
  deps.feed.publish({ topic: "requests" });
  return c.redirect(`/console/requests?done=${encodeURIComponent(sentence)}`, 303);
}
