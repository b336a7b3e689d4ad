import { Marked, type Tokens } from "marked";

export const HTML_FORMAT = "org.matrix.custom.html";

/**
 * The most a message's content may take as JSON. Matrix caps a whole event at 65,536 bytes, with
 * signatures, hashes and room references added by the server, and encryption grows content by a
 * third; keeping content under this leaves room for all of it.
 */
export const CONTENT_BUDGET_BYTES = 40_000;

export interface RenderedText {
  /** The markdown itself: what clients without HTML show, and what search indexes. */
  readonly body: string;
  readonly format?: typeof HTML_FORMAT;
  readonly formatted_body?: string;
}

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * Raw HTML in an answer is shown as text, never passed through: clients strip tags they do not
 * allow, which would silently drop whatever an answer wrote between angle brackets.
 */
const markdown = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      const text = escapeHtml(token.text);
      return "block" in token && token.block ? `<p>${text}</p>\n` : text;
    },
  },
});

export function markdownToHtml(text: string): string {
  return markdown.parse(text, { async: false }).trimEnd();
}

export class ContentTooLargeError extends Error {
  constructor(bytes: number) {
    super(
      `a message of ${bytes} bytes does not fit a Matrix event even without HTML; lower matrix.maxMessageLength`,
    );
    this.name = "ContentTooLargeError";
  }
}

export function contentBytes(content: unknown): number {
  return Buffer.byteLength(JSON.stringify(content), "utf8");
}

/**
 * A markdown chunk as `body` + `org.matrix.custom.html`. Should the HTML push the content over the
 * budget (markup-dense text), the plain body alone is sent rather than an event the server rejects.
 */
export function renderText(
  text: string,
  fixedFields: Readonly<Record<string, unknown>>,
  budget = CONTENT_BUDGET_BYTES,
): RenderedText {
  const html: RenderedText = { body: text, format: HTML_FORMAT, formatted_body: markdownToHtml(text) };
  if (contentBytes({ ...fixedFields, ...html }) <= budget) return html;
  const plain: RenderedText = { body: text };
  const bytes = contentBytes({ ...fixedFields, ...plain });
  if (bytes > budget) throw new ContentTooLargeError(bytes);
  return plain;
}
