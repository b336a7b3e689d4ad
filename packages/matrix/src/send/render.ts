import { toHtml } from "hast-util-to-html";
import type { Nodes, Parent, PhrasingContent, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toHast } from "mdast-util-to-hast";
import { gfm } from "micromark-extension-gfm";

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

/**
 * Raw HTML in an answer is shown as text, never passed through: clients strip tags they do not
 * allow, which would silently drop whatever an answer wrote between angle brackets. A line break
 * inside a paragraph is a break, as chat writers mean it (GFM would join the lines).
 */
function asChatMarkdown(node: Nodes): void {
  if (!("children" in node)) return;
  const parent = node as Parent;
  parent.children = parent.children.flatMap((child): Parent["children"] => {
    if (child.type === "html") {
      const text = { type: "text" as const, value: child.value };
      return parent.type === "root" ? [{ type: "paragraph", children: [text] }] : [text];
    }
    if (child.type === "text" && child.value.includes("\n")) {
      return child.value.split(/\r?\n/).flatMap((line, index): PhrasingContent[] => {
        const text: PhrasingContent = { type: "text", value: line };
        return index === 0 ? [text] : [{ type: "break" }, text];
      });
    }
    asChatMarkdown(child);
    return [child];
  });
}

/** Markdown as Matrix's `org.matrix.custom.html`, from the same GFM syntax tree (mdast) Slack's and Discord's formatters read. */
export function markdownToHtml(text: string): string {
  const tree: Root = fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  asChatMarkdown(tree);
  return toHtml(toHast(tree), { characterReferences: { useNamedReferences: true } }).trimEnd();
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
