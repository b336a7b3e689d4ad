import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { ConsoleDeps, ConsoleLearning, LearningSource } from "../console-deps.ts";
import { conversationHref, describePlace, formatTime } from "../views/format.ts";
import { render } from "../views/render.ts";

const SUBJECTS_LISTED = 200;

/** Learnings agents keep: by subject (a person, a thread, a place), the latest changed first; one deletable. */
export function learningRoutes(app: Hono, deps: ConsoleDeps): void {
  const learnings = deps.learnings;
  if (!learnings) return;
  app.get("/console/learnings", (c) => learningsPage(c, learnings));
  app.post("/console/learnings/delete", (c) => remove(c, learnings));
}

async function learningsPage(c: Context, learnings: LearningSource): Promise<Response> {
  const listing = await learnings.listing(SUBJECTS_LISTED);
  const done = c.req.query("done");
  const count = listing.reduce((sum, subject) => sum + subject.learnings.length, 0);
  const body = html`
<h1>Learnings</h1>
${done ? html`<p class="notice" role="status">${done}</p>` : ""}
<p class="count">${count} learning${count === 1 ? "" : "s"} about ${listing.length} subject${listing.length === 1 ? "" : "s"}</p>
${listing.length === 0 ? html`<p>No agent has kept a learning yet.</p>` : ""}
${listing.map(
  ({ subject, learnings: kept }) => html`<section class="learnings" data-subject="${subject}">
  <h2>${subjectTitle(subject)}</h2>
  <ul>
  ${[...kept].reverse().map((learning) => learningView(subject, learning))}
  </ul>
</section>`,
)}`;
  return render(c, { title: "Learnings", section: "learnings", topics: [], pollSeconds: 10, body });
}

function learningView(subject: string, learning: ConsoleLearning) {
  const { platform, place } = describePlace(learning.in);
  return html`<li class="learning" data-learning-id="${learning.id}">
  <code>${learning.id}</code> ${learning.text}
  <span class="sub">${learning.scope} · from ${learning.by} in <a href="${conversationHref(learning.in)}">${platform} · ${place}</a> · ${formatTime(learning.at)}</span>
  <form method="post" action="/console/learnings/delete" class="actions">
    <input type="hidden" name="subject" value="${subject}"><input type="hidden" name="id" value="${learning.id}">
    <button type="submit">Delete</button>
  </form>
</li>`;
}

/** `user:slack:U0ALICE` → "Person slack:U0ALICE"; a conversation or place links to it. */
function subjectTitle(subject: string) {
  const [scope, ...rest] = subject.split(":");
  const what = rest.join(":");
  if (scope === "user") return html`Person <code>${what}</code>`;
  const { platform, place } = describePlace(what);
  const label = scope === "place" ? "Place" : "Thread";
  return html`${label} <a href="${conversationHref(what)}">${platform} · ${place}</a>`;
}

async function remove(c: Context, learnings: LearningSource): Promise<Response> {
  const form = await c.req.parseBody();
  const subject = String(form.subject ?? "");
  const id = String(form.id ?? "");
  if (subject === "" || id === "") return c.text("400: name the subject and the learning", 400);
  const removed = await learnings.remove(subject, id);
  const sentence = removed ? `Deleted learning ${id}.` : `Learning ${id} was already gone.`;
  return c.redirect(`/console/learnings?done=${encodeURIComponent(sentence)}`, 303);
}
