import { decodeConversationKey, type InboundMessage } from "@switchboard/core";
import { InvalidConversationKeyError } from "@switchboard/core/adapter";
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { runTimeline } from "../../insight/run-timeline.ts";
import { type ConsoleDeps, OPERATOR } from "../console-deps.ts";
import { conversationHref, describePlace, formatTime } from "../views/format.ts";
import type { Html } from "../views/layout.ts";
import { render } from "../views/render.ts";
import { timelineView } from "../views/timeline.ts";
import { transcriptView } from "../views/transcript.ts";
import { withDownloadedFiles } from "./files.ts";

/** The actions the page offers, each run as the chat command of the same effect. */
const ACTIONS = {
  reset: { command: "reset", args: "" },
  supervisor: { command: "supervisor", args: "" },
  forget: { command: "forget", args: "confirm" },
} as const;
type Action = keyof typeof ACTIONS;

const SHOWN_ENTRIES = 20;
const SHOWN_SESSIONS = 10;

export function conversationPageRoutes(app: Hono, deps: ConsoleDeps): void {
  app.get("/console/conversations/:key", (c) => conversationPage(c, deps));
  app.post("/console/conversations/:key/actions", (c) => runAction(c, deps));
}

async function conversationPage(c: Context, deps: ConsoleDeps): Promise<Response> {
  const key = c.req.param("key") ?? "";
  if (!validKey(key)) return c.text("404: no such conversation", 404);
  const [summary, transcript, timeline, active, memory, names] = await Promise.all([
    deps.log.summary(key),
    deps.log
      .transcript(key)
      .then((messages) => withDownloadedFiles(deps, decodeConversationKey(key).platform, messages)),
    runTimeline(key, { requests: deps.requests, steps: deps.steps }),
    deps.team.activeAgents.get(key),
    memoryView(key, deps),
    deps.placeNames?.(key),
  ]);
  const { platform, place } = describePlace(key, names);
  const done = c.req.query("done");
  const body = html`
<h1>${platform} · ${place}</h1>
<p class="sub">Key <code>${key}</code> · active agent <strong>${active?.agent ?? "supervisor"}</strong>${active ? ` since ${formatTime(active.since)}` : ""} · ${summary?.messageCount ?? 0} messages</p>
${done ? html`<p class="notice" role="status">${done}</p>` : ""}
<div class="columns">
  <section aria-labelledby="transcript-title"><h2 id="transcript-title">Transcript</h2>${transcriptView(transcript, deps.isWorking(key), deps.workStatus?.(key))}</section>
  <section aria-labelledby="timeline-title"><h2 id="timeline-title">Run timeline</h2>${timelineView(timeline)}</section>
</div>
<section aria-labelledby="memory-title"><h2 id="memory-title">Memory of this thread</h2>${memory}</section>
<section aria-labelledby="actions-title"><h2 id="actions-title">Actions</h2>
  <div class="actions">
    <form method="post" action="${conversationHref(key)}/actions"><input type="hidden" name="action" value="supervisor"><button type="submit">Hand back to the supervisor</button></form>
    <form method="post" action="${conversationHref(key)}/actions"><input type="hidden" name="action" value="reset"><button type="submit">Reset the conversation</button></form>
    <form method="post" action="${conversationHref(key)}/actions" class="danger">
      <input type="hidden" name="action" value="forget">
      <label><input type="checkbox" name="confirm" value="yes" required> I understand this deletes what the team remembers here</label>
      <button type="submit">Forget memory</button>
    </form>
  </div>
</section>`;
  return render(c, {
    title: place,
    section: "conversations",
    topics: ["conversations", "requests"],
    conversationKey: key,
    body,
  });
}

async function memoryView(key: string, deps: ConsoleDeps): Promise<Html> {
  if (!deps.memory) return html`<p>Memory is off in this configuration.</p>`;
  const { book, archive } = deps.memory;
  const [context, entries, total, sessions] = await Promise.all([
    book.context(key),
    book.recentEntries(key, SHOWN_ENTRIES),
    book.entryCount(key),
    archive.recent(key, SHOWN_SESSIONS),
  ]);
  return html`
<h3>Context document</h3>
${context ? html`<p class="sub">updated ${formatTime(context.updatedAt)}</p><div class="text">${context.content}</div>` : html`<p>Not written yet.</p>`}
<h3>Entries (${Math.min(total, SHOWN_ENTRIES)} newest of ${total})</h3>
${entries.length === 0 ? html`<p>None yet.</p>` : html`<ol class="entries">${entries.map((entry) => html`<li><span class="who">${entry.role}</span> ${entry.summary} <span class="sub">${formatTime(entry.at)}${entry.tags.length > 0 ? ` · ${entry.tags.join(", ")}` : ""}</span></li>`)}</ol>`}
<h3>Archived sessions</h3>
${sessions.length === 0 ? html`<p>None yet.</p>` : html`<ol class="entries">${sessions.map((session) => html`<li><span class="sub">${formatTime(session.startedAt)} – ${formatTime(session.endedAt)} · ${session.messageCount} messages · ${session.reason}</span><div>${session.summary}</div></li>`)}</ol>`}`;
}

async function runAction(c: Context, deps: ConsoleDeps): Promise<Response> {
  const key = c.req.param("key") ?? "";
  if (!validKey(key)) return c.text("404: no such conversation", 404);
  const form = await c.req.parseBody();
  const action = String(form.action ?? "");
  if (!(action in ACTIONS)) return c.text(`400: unknown action ${JSON.stringify(action)}`, 400);
  const back = (message: string) =>
    c.redirect(`${conversationHref(key)}?done=${encodeURIComponent(message)}`, 303);
  if (action === "forget" && form.confirm !== "yes")
    return back("Not forgotten: tick the confirmation first.");
  const { command: name, args } = ACTIONS[action as Action];
  const command = deps.commands.get(name);
  if (!command) return back(`Not available here: /${name} is not enabled in this configuration.`);
  const result = await command.run({
    key,
    conversation: decodeConversationKey(key),
    message: operatorMessage(key, name),
    args,
    prefix: "/",
  });
  deps.feed.publish({ topic: "conversations", key });
  return back(result.reply ?? "Done.");
}

/** The console operator's action, shaped as the message a chat command expects. */
function operatorMessage(key: string, command: string): InboundMessage {
  return {
    id: `console-${command}-${Date.now()}`,
    conversation: decodeConversationKey(key),
    author: { ...OPERATOR, isBot: false, isSelf: false },
    text: `/${command}`,
    isDirect: true,
    mentionsBot: false,
    isEdit: false,
    sentAt: Date.now(),
  };
}

function validKey(key: string): boolean {
  try {
    decodeConversationKey(key);
    return true;
  } catch (error) {
    if (error instanceof InvalidConversationKeyError) return false;
    throw error;
  }
}
