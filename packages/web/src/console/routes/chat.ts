import { randomBytes } from "node:crypto";
import { encodeConversationKey } from "@switchboard/core";
import type { Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { getCookie, setCookie } from "hono/cookie";
import { html } from "hono/html";
import { webConversation } from "../../adapter/web-adapter.ts";
import { type WebUpload, WebUploadTooLargeError } from "../../adapter/web-files.ts";
import { type ConsoleDeps, OPERATOR } from "../console-deps.ts";
import { conversationHref } from "../views/format.ts";
import { render } from "../views/render.ts";
import { transcriptView } from "../views/transcript.ts";
import { withDownloadedFiles } from "./files.ts";

const CHAT_COOKIE = "sb_chat_session";
const SESSION_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;
/** Thread names: words, `#channel`, and the `#channel/<id>` threads a mention opens. */
const THREAD_PATTERN = /^#?[\w.-]{1,40}(\/[\w-]{1,40})?$/;
const MAX_TEXT = 8_000;

export function chatRoutes(app: Hono, deps: ConsoleDeps, options: { secureCookie: boolean }): void {
  app.get("/console/chat", (c) => chatPage(c, deps, options));
  const files = deps.files;
  // A message's files arrive whole in one form post: bounded before it is read.
  const limit = files ? files.maxBytes * files.maxPerMessage + 1024 * 1024 : 1024 * 1024;
  app.post(
    "/console/chat/send",
    bodyLimit({
      maxSize: limit,
      onError: (c) =>
        c.text(`413: a message and its files may be at most ${Math.floor(limit / 1048576)} MB`, 413),
    }),
    (c) => send(c, deps, options),
  );
}

/** The browser's chat session: its threads are this browser's conversations. */
function chatSession(c: Context, options: { secureCookie: boolean }): string {
  const existing = getCookie(c, CHAT_COOKIE);
  if (existing && SESSION_PATTERN.test(existing)) return existing;
  const session = randomBytes(9).toString("base64url");
  setCookie(c, CHAT_COOKIE, session, {
    httpOnly: true,
    sameSite: "Strict",
    path: "/console",
    secure: options.secureCookie,
    maxAge: 365 * 24 * 60 * 60,
  });
  return session;
}

function threadOf(value: string | undefined): string {
  return value && THREAD_PATTERN.test(value) ? value : "main";
}

async function chatPage(
  c: Context,
  deps: ConsoleDeps,
  options: { secureCookie: boolean },
): Promise<Response> {
  const session = chatSession(c, options);
  const thread = threadOf(c.req.query("thread"));
  const key = encodeConversationKey(webConversation(session, thread));
  const prefix = encodeConversationKey(webConversation(session, ""));
  const threads = new Set<string>(["main", thread]);
  for (const summary of await deps.log.list()) {
    if (summary.key.startsWith(prefix)) threads.add(summary.conversation.path[1] ?? "main");
  }
  const transcript = await withDownloadedFiles(deps, "web", await deps.log.transcript(key));
  const body = html`
<h1>Chat with the team</h1>
<div class="chat">
  <nav aria-label="Threads" class="threads">
    <h2>Threads</h2>
    <ul>${[...threads].sort().map((name) => html`<li><a href="/console/chat?thread=${encodeURIComponent(name)}"${name === thread ? html` aria-current="page"` : ""}>${name}</a></li>`)}</ul>
    <form method="get" action="/console/chat"><label>New thread <input name="thread" pattern="#?[A-Za-z0-9_.\\-]{1,40}" required placeholder="name or #channel"></label><button type="submit">Open</button></form>
  </nav>
  <section aria-labelledby="thread-title">
    <h2 id="thread-title">${thread}</h2>
    <p class="sub">Commands work here as on every platform: <code>/help</code>, <code>/status</code>, <code>/supervisor</code>, <code>/reset</code>, <code>/approve</code>. In a <code>#channel</code> thread, mention <code>@bot</code>. <a href="${conversationHref(key)}">Inspect this conversation</a></p>
    ${transcriptView(transcript, deps.isWorking(key), deps.workStatus?.(key))}
  </section>
</div>`;
  const takesFiles = deps.files !== undefined && deps.chat.takesFiles;
  const form = html`<form method="post" action="/console/chat/send" class="composer" data-chat-form${takesFiles ? html` enctype="multipart/form-data"` : ""}>
  <input type="hidden" name="thread" value="${thread}">
  <label for="chat-text">Message</label>
  <textarea id="chat-text" name="text" rows="2" maxlength="${MAX_TEXT}"${takesFiles ? "" : html` required`} placeholder="Write to the team — Enter sends, Shift+Enter adds a line"></textarea>
  ${takesFiles ? html`<label class="attach">Attach files <input type="file" id="chat-files" name="files" multiple></label>` : ""}
  <button type="submit">Send</button>
</form>`;
  return render(c, {
    title: `Chat · ${thread}`,
    section: "chat",
    topics: ["conversations"],
    conversationKey: key,
    body,
    // Outside the live region: a live update must not wipe what is being typed.
    footer: form,
  });
}

async function send(c: Context, deps: ConsoleDeps, options: { secureCookie: boolean }): Promise<Response> {
  const session = chatSession(c, options);
  const form = await c.req.parseBody({ all: true });
  const thread = threadOf(typeof form.thread === "string" ? form.thread : undefined);
  const text = typeof form.text === "string" ? form.text.trim() : "";
  const picked = [form.files ?? []]
    .flat()
    .filter((file): file is File => file instanceof File && file.size > 0);
  if (text === "" && picked.length === 0) return c.text("400: write a message first", 400);
  if (text.length > MAX_TEXT) return c.text(`400: messages are at most ${MAX_TEXT} characters`, 400);
  if (picked.length > 0 && !(deps.files && deps.chat.takesFiles))
    return c.text("400: this chat takes no files (attachments are off)", 400);
  if (deps.files && picked.length > deps.files.maxPerMessage)
    return c.text(`400: at most ${deps.files.maxPerMessage} files a message`, 400);
  const files: WebUpload[] = picked.map((file) => ({
    name: file.name,
    type: file.type,
    bytes: file.stream(),
  }));
  let id: string;
  try {
    id = await deps.chat.send({
      session,
      thread,
      text,
      author: OPERATOR,
      ...(files.length ? { files } : {}),
    });
  } catch (error) {
    if (error instanceof WebUploadTooLargeError) return c.text(`413: ${error.message}`, 413);
    throw error;
  }
  if (c.req.header("x-console-fragment")) return c.json({ id });
  return c.redirect(`/console/chat?thread=${encodeURIComponent(thread)}`, 303);
}
