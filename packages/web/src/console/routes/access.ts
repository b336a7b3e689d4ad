import type { PairingApproval, PendingPairing } from "@switchboard/core/host";
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { type ConsoleDeps, OPERATOR } from "../console-deps.ts";
import { formatTime } from "../views/format.ts";
import { render } from "../views/render.ts";

/** `/console/access`: pairing codes waiting for approval, and who was let in (approve, revoke). */
export function accessRoutes(app: Hono, deps: ConsoleDeps): void {
  app.get("/console/access", (c) => accessPage(c, deps));
  app.post("/console/access/approve", (c) => approve(c, deps));
  app.post("/console/access/revoke", (c) => revoke(c, deps));
}

function codeShown(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

function person(one: { userName?: string; userId: string }): string {
  return one.userName ? `${one.userName} (${one.userId})` : one.userId;
}

async function accessPage(c: Context, deps: ConsoleDeps): Promise<Response> {
  const source = deps.access;
  const [pending, approved] = source ? await Promise.all([source.pending(), source.approved()]) : [[], []];
  const done = c.req.query("done");
  const body = html`
<h1>Access</h1>
${done ? html`<p class="notice" role="status">${done}</p>` : ""}
<p>People who write to the bot directly on a platform with <code>access.&lt;platform&gt;.dm: pairing</code> get a code; approve it here, with <code>switchboard pairing approve &lt;code&gt;</code>, or by sending <code>/pair &lt;code&gt;</code> to the bot as an admin.</p>
<h2>Waiting for approval</h2>
${
  pending.length === 0
    ? html`<p class="sub">No codes are waiting.</p>`
    : html`<div class="table-wrap"><table class="pairing-pending">
  <thead><tr><th scope="col">code</th><th scope="col">person</th><th scope="col">platform</th><th scope="col">expires</th><th scope="col">action</th></tr></thead>
  <tbody>${pending.map(
    (one: PendingPairing) => html`<tr data-code="${one.code}">
  <td><code>${codeShown(one.code)}</code></td><td>${person(one)}</td><td>${one.platform}</td><td>${formatTime(one.expiresAt)}</td>
  <td><form method="post" action="/console/access/approve"><input type="hidden" name="code" value="${one.code}"><button type="submit">Approve</button></form></td>
</tr>`,
  )}</tbody></table></div>`
}
<h2>Let in</h2>
${
  approved.length === 0
    ? html`<p class="sub">Nobody was approved by code yet.</p>`
    : html`<div class="table-wrap"><table class="pairing-approved">
  <thead><tr><th scope="col">person</th><th scope="col">platform</th><th scope="col">approved</th><th scope="col">action</th></tr></thead>
  <tbody>${approved.map(
    (one: PairingApproval) => html`<tr data-user="${one.userId}">
  <td>${person(one)}</td><td>${one.platform}</td><td>${formatTime(one.approvedAt)}<div class="sub">by ${one.approvedBy}</div></td>
  <td><form method="post" action="/console/access/revoke"><input type="hidden" name="platform" value="${one.platform}"><input type="hidden" name="user" value="${one.userId}"><button type="submit">Revoke</button></form></td>
</tr>`,
  )}</tbody></table></div>`
}`;
  return render(c, { title: "Access", section: "access", topics: ["access"], body });
}

async function approve(c: Context, deps: ConsoleDeps): Promise<Response> {
  if (!deps.access) return c.text("404: access is not available in this process", 404);
  const form = await c.req.parseBody();
  const code = String(form.code ?? "");
  if (code === "") return c.text("400: say which code", 400);
  const sentence = await deps.access.approve(code, OPERATOR.displayName);
  deps.feed.publish({ topic: "access" });
  return c.redirect(`/console/access?done=${encodeURIComponent(sentence)}`, 303);
}

async function revoke(c: Context, deps: ConsoleDeps): Promise<Response> {
  if (!deps.access) return c.text("404: access is not available in this process", 404);
  const form = await c.req.parseBody();
  const platform = String(form.platform ?? "");
  const user = String(form.user ?? "");
  if (platform === "" || user === "") return c.text("400: say which platform and user", 400);
  const sentence = await deps.access.revoke(platform, user);
  deps.feed.publish({ topic: "access" });
  return c.redirect(`/console/access?done=${encodeURIComponent(sentence)}`, 303);
}
