import type { Definition, List, ListItem, Nodes, PhrasingContent, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { escapeText, neutralizeMentions, slackLink } from "./escape.ts";
import { plainText, renderTable } from "./mrkdwn-table.ts";

interface RenderContext {
  readonly definitions: ReadonlyMap<string, Definition>;
}

const BULLETS = ["•", "◦", "▪"];
const INDENT = "    ";

/** Code keeps `@here` as typed (Slack never links inside code) but still cannot carry entities. */
function escapeCode(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** `*x*` needs the markers against the words: `** bold **` → ` *bold* `. */
function wrap(marker: string, inner: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner);
  const [, lead = "", core = "", trail = ""] = match ?? [];
  return core === "" ? inner : `${lead}${marker}${core}${marker}${trail}`;
}

function renderInline(nodes: readonly PhrasingContent[], context: RenderContext): string {
  return nodes.map((node) => renderPhrasing(node, context)).join("");
}

function linkTo(url: string, label: string): string {
  return slackLink(url, label) ?? escapeText(label === "" ? url : label);
}

function renderPhrasing(node: PhrasingContent, context: RenderContext): string {
  switch (node.type) {
    case "text":
      return escapeText(node.value);
    case "emphasis":
      return wrap("_", renderInline(node.children, context));
    case "strong":
      return wrap("*", renderInline(node.children, context));
    case "delete":
      return wrap("~", renderInline(node.children, context));
    case "inlineCode":
      // A backtick would end the span early; the look-alike keeps the code readable.
      return `\`${escapeCode(node.value.replaceAll("`", "ˋ"))}\``;
    case "break":
      return "\n";
    case "link":
      return linkTo(node.url, plainText(node));
    case "image":
      return linkTo(node.url, node.alt || node.url);
    case "linkReference":
    case "imageReference": {
      const definition = context.definitions.get(node.identifier.toLowerCase());
      const label = node.type === "imageReference" ? (node.alt ?? node.label ?? "") : plainText(node);
      return definition ? linkTo(definition.url, label) : escapeText(`[${label}]`);
    }
    case "footnoteReference":
      return escapeText(`[^${node.label ?? node.identifier}]`);
    case "html":
      return escapeText(node.value);
    default:
      return escapeText(plainText(node));
  }
}

function renderListItem(item: ListItem, marker: string, depth: number, context: RenderContext): string {
  const indent = INDENT.repeat(depth);
  const box = item.checked === true ? "☑ " : item.checked === false ? "☐ " : "";
  const lines: string[] = [];
  for (const child of item.children) {
    if (child.type === "list") {
      lines.push(renderList(child, depth + 1, context));
      continue;
    }
    const rendered = renderBlock(child, depth, context).split("\n");
    for (const line of rendered) {
      lines.push(
        lines.length === 0
          ? `${indent}${marker} ${box}${line}`
          : `${indent}${" ".repeat(marker.length + 1)}${line}`,
      );
    }
  }
  return lines.length === 0 ? `${indent}${marker} ${box}`.trimEnd() : lines.join("\n");
}

function renderList(list: List, depth: number, context: RenderContext): string {
  const start = list.start ?? 1;
  return list.children
    .map((item, i) =>
      renderListItem(
        item,
        list.ordered ? `${start + i}.` : (BULLETS[depth % BULLETS.length] ?? "•"),
        depth,
        context,
      ),
    )
    .join("\n");
}

function renderBlock(node: RootContent, depth: number, context: RenderContext): string {
  switch (node.type) {
    case "paragraph":
      return renderInline(node.children, context);
    case "heading":
      return wrap("*", escapeText(plainText(node)));
    case "thematicBreak":
      return "──────────";
    case "blockquote":
      return renderBlocks(node.children, depth, context)
        .split("\n")
        .map((line) => (line === "" ? ">" : `> ${line}`))
        .join("\n");
    case "list":
      return renderList(node, depth, context);
    case "code":
      return `\`\`\`\n${escapeCode(node.value)}\n\`\`\``;
    case "table":
      return renderTable(node);
    case "html":
      return escapeText(node.value);
    case "definition":
      return "";
    case "footnoteDefinition":
      return `${escapeText(`[^${node.label ?? node.identifier}]:`)} ${renderBlocks(node.children, depth, context)}`;
    default:
      return escapeText(plainText(node as Nodes));
  }
}

function renderBlocks(nodes: readonly RootContent[], depth: number, context: RenderContext): string {
  return nodes
    .map((node) => renderBlock(node, depth, context))
    .filter((block) => block !== "")
    .join("\n\n");
}

function collectDefinitions(node: Nodes, into: Map<string, Definition>): Map<string, Definition> {
  if (node.type === "definition") into.set(node.identifier.toLowerCase(), node);
  if ("children" in node) for (const child of node.children) collectDefinitions(child, into);
  return into;
}

/**
 * Text in which markdown can mean nothing: words, digits, spaces and punctuation that never opens
 * syntax, paragraphs of lines with no edge whitespace, no list numbers, links or entities. Most
 * short answers are such text, and parsing one costs about a millisecond of micromark.
 */
const PLAIN_CHARACTERS = /^[\p{L}\p{M}\p{N}\p{Sc} ,.;:?!'"()%/\n\u2019\u201c\u201d]*$/u;
const MARKDOWN_IN_PLAIN_CHARACTERS = /:\/\/|www\.|\n\n\n|^ | $|^\d+[.)]/im;

export function isPlainText(text: string): boolean {
  // Blank lines before and whitespace after the text mean nothing; leading spaces can open a code block.
  const lines = text.replace(/^\n+|\s+$/g, "");
  return lines !== "" && PLAIN_CHARACTERS.test(text) && !MARKDOWN_IN_PLAIN_CHARACTERS.test(lines);
}

/**
 * Markdown (what the team writes) → Slack mrkdwn, through the markdown syntax tree: `*bold*`,
 * `_italic_`, `~strike~`, `<url|label>` links, bullet lists, code blocks without language, tables
 * made readable. Every piece of text is escaped, so nothing in model output can ping anyone.
 * Plain text skips the parser: rendered, it would come out as itself.
 */
export function markdownToMrkdwn(markdown: string): string {
  // No `&`, `<`, `>` or `@` in plain text: escaping would change nothing.
  if (isPlainText(markdown)) return markdown.trim();
  return renderMarkdown(markdown);
}

/** The full conversion, through the syntax tree (what `markdownToMrkdwn` does for any text with syntax). */
export function renderMarkdown(markdown: string): string {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const context: RenderContext = { definitions: collectDefinitions(tree, new Map()) };
  return neutralizeMentions(renderBlocks(tree.children, 0, context).trim());
}
