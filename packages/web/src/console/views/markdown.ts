import { raw } from "hono/html";
import MarkdownIt from "markdown-it";

// Raw HTML in a message is shown as text, never interpreted; link targets are checked by
// markdown-it (no javascript: or data: URLs), so a message can never run script in the console.
const markdown = new MarkdownIt({ html: false, linkify: false, breaks: true });

/** A bot message's markdown as safe HTML, the way chat platforms show it. */
export function markdownHtml(text: string) {
  return raw(markdown.render(text));
}
