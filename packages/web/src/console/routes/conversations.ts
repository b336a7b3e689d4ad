import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { ConsoleDeps } from "../console-deps.ts";
import { conversationHref, describePlace, formatAge, formatTime } from "../views/format.ts";
import { render } from "../views/render.ts";

interface Row {
  readonly key: string;
  readonly platform: string;
  readonly place: string;
  readonly agent: string;
  readonly agentSince?: number;
  readonly lastAt: number;
  readonly messageCount: number;
  readonly openRequests: number;
  readonly participants: readonly string[];
  readonly lastText: string;
}

export interface ConversationFilter {
  readonly platform?: string;
  readonly agent?: string;
  readonly text?: string;
}

/** What a filter looks at in a conversation row. */
export type FilterableRow = Pick<Row, "key" | "platform" | "place" | "agent" | "participants" | "lastText">;

/** Keeps the rows that match every filter given; text matches key, place, people and the last message. */
export function filterConversations<T extends FilterableRow>(
  rows: readonly T[],
  filter: ConversationFilter,
): T[] {
  const text = filter.text?.trim().toLowerCase();
  return rows.filter(
    (row) =>
      (!filter.platform || row.platform === filter.platform) &&
      (!filter.agent || row.agent === filter.agent) &&
      (!text ||
        [row.key, row.place, row.lastText, ...row.participants].some((field) =>
          field.toLowerCase().includes(text),
        )),
  );
}

export function conversationRoutes(app: Hono, deps: ConsoleDeps): void {
  app.get("/console/conversations", (c) => conversationsPage(c, deps));
}

async function conversationsPage(c: Context, deps: ConsoleDeps): Promise<Response> {
  const filter: ConversationFilter = {
    platform: c.req.query("platform") || undefined,
    agent: c.req.query("agent") || undefined,
    text: c.req.query("q") || undefined,
  };
  const [summaries, open] = await Promise.all([deps.log.list(), deps.requests.openRequests()]);
  const openByKey = new Map<string, number>();
  for (const request of open)
    openByKey.set(request.conversationKey, (openByKey.get(request.conversationKey) ?? 0) + 1);
  const rows: Row[] = await Promise.all(
    summaries.map(async (summary) => {
      const [active, names] = await Promise.all([
        deps.team.activeAgents.get(summary.key),
        deps.placeNames?.(summary.key),
      ]);
      return {
        key: summary.key,
        ...describePlace(summary.key, names),
        agent: active?.agent ?? "supervisor",
        ...(active ? { agentSince: active.since } : {}),
        lastAt: summary.lastAt,
        messageCount: summary.messageCount,
        openRequests: openByKey.get(summary.key) ?? 0,
        participants: summary.participants,
        lastText: summary.lastText,
      };
    }),
  );
  const shown = filterConversations(rows, filter);
  const platforms = [...new Set(rows.map((row) => row.platform))].sort();
  const agents = [...new Set(["supervisor", ...deps.team.agents().map((agent) => agent.name)])];
  const now = Date.now();
  const body = html`
<h1>Conversations</h1>
<form class="filters" method="get" action="/console/conversations" role="search">
  <label>Platform
    <select name="platform">
      <option value="">all</option>
      ${platforms.map((p) => html`<option value="${p}"${p === filter.platform ? " selected" : ""}>${p}</option>`)}
    </select>
  </label>
  <label>Agent
    <select name="agent">
      <option value="">all</option>
      ${agents.map((a) => html`<option value="${a}"${a === filter.agent ? " selected" : ""}>${a}</option>`)}
    </select>
  </label>
  <label>Text <input type="search" name="q" value="${filter.text ?? ""}" placeholder="place, person, words"></label>
  <button type="submit">Filter</button>
</form>
<p class="count">${shown.length} of ${rows.length} conversations</p>
<div class="table-wrap">
<table class="conversations">
  <thead><tr><th scope="col">Platform</th><th scope="col">Place</th><th scope="col">Active agent</th><th scope="col">Last activity</th><th scope="col">Messages</th><th scope="col">Open requests</th></tr></thead>
  <tbody>
  ${shown.length === 0 ? html`<tr><td colspan="6">No conversations yet${rows.length > 0 ? " match these filters" : ""}.</td></tr>` : ""}
  ${shown.map(
    (row) => html`<tr>
      <td>${row.platform}</td>
      <td><a href="${conversationHref(row.key)}">${row.place}</a><div class="sub">${row.participants.join(", ")}${row.lastText ? html` — “${row.lastText}”` : ""}</div></td>
      <td>${row.agent}${row.agentSince ? html`<div class="sub">since ${formatTime(row.agentSince)}</div>` : ""}</td>
      <td><time datetime="${new Date(row.lastAt).toISOString()}">${formatTime(row.lastAt)}</time><div class="sub">${formatAge(now - row.lastAt)} ago</div></td>
      <td class="num">${row.messageCount}</td>
      <td class="num">${row.openRequests > 0 ? html`<strong>${row.openRequests} open</strong>` : "none"}</td>
    </tr>`,
  )}
  </tbody>
</table>
</div>`;
  return render(c, {
    title: "Conversations",
    section: "conversations",
    topics: ["conversations", "requests"],
    body,
  });
}
