import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { LiveTopic } from "../../activity/live-feed.ts";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface Page {
  readonly title: string;
  /** Which nav entry is current. */
  readonly section: Section;
  /** Live events that make the page fetch its fresh content. */
  readonly topics: readonly LiveTopic[];
  /**
   * Also refresh this often: for what other processes change (a cluster's workers run task steps
   * the console's process never hears of).
   */
  readonly pollSeconds?: number;
  /** Only events about this conversation count (conversation and chat pages). */
  readonly conversationKey?: string;
  readonly body: Html;
  /** After the live region, never replaced by live updates (the chat's composer). */
  readonly footer?: Html;
}

export type Section =
  | "conversations"
  | "requests"
  | "tasks"
  | "schedules"
  | "access"
  | "usage"
  | "health"
  | "chat";

const SECTIONS: readonly { id: Section; label: string }[] = [
  { id: "conversations", label: "Conversations" },
  { id: "requests", label: "Requests" },
  { id: "tasks", label: "Tasks" },
  { id: "schedules", label: "Schedules" },
  { id: "access", label: "Access" },
  { id: "usage", label: "Usage" },
  { id: "health", label: "Health" },
  { id: "chat", label: "Chat" },
];

/** The page around every view: navigation, the live region, the script that keeps it fresh. */
export function layout(page: Page): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · Switchboard console</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#live">Skip to content</a>
<header>
  <span class="brand">Switchboard</span>
  <nav aria-label="Console sections">
    <ul>
      ${SECTIONS.map(
        (section) =>
          html`<li><a href="/console/${section.id}"${section.id === page.section ? html` aria-current="page"` : ""}>${section.label}</a></li>`,
      )}
    </ul>
  </nav>
  <span class="live-state" id="live-state" role="status">connecting…</span>
</header>
<main id="live" data-topics="${page.topics.join(" ")}" data-key="${page.conversationKey ?? ""}" data-poll="${page.pollSeconds ?? ""}" tabindex="-1">
${page.body}
</main>
${page.footer ?? ""}
</body>
</html>`;
}
