import { html } from "hono/html";
import type { TranscriptMessage } from "../../activity/conversation-log.ts";
import { filesView } from "./files.ts";
import { formatTime } from "./format.ts";
import type { Html } from "./layout.ts";
import { markdownHtml } from "./markdown.ts";

/** The messages as the users saw them; the writer is named in text, never told by colour alone. */
export function transcriptView(
  messages: readonly TranscriptMessage[],
  working: boolean,
  /** What the team is doing now ("billing is checking your invoice…"), when it said. */
  status?: string,
): Html {
  return html`<ol class="transcript" aria-label="Transcript">
  ${messages.length === 0 ? html`<li class="empty">No messages yet.</li>` : ""}
  ${messages.map(
    (message) => html`<li class="message ${message.role}" data-message-id="${message.id}">
    <div class="meta"><span class="who">${message.role === "bot" ? html`bot · <span class="agent">${botName(message)}</span>` : html`${message.author}`}</span>
      <time datetime="${new Date(message.at).toISOString()}">${formatTime(message.at)}</time></div>
    ${message.text === "" ? "" : message.role === "bot" ? html`<div class="markdown">${markdownHtml(message.text)}</div>` : html`<div class="text">${message.text}</div>`}
    ${filesView(message.files)}
  </li>`,
  )}
  ${working ? html`<li class="working" role="status">${status ?? "The team is working on an answer…"}</li>` : ""}
</ol>`;
}

/** The name the bot's message showed on the platform, with the agent behind it when that differs. */
function botName(message: TranscriptMessage): string {
  const agent = message.agent ?? "switchboard";
  return message.author === agent ? agent : `${message.author} (${agent})`;
}
